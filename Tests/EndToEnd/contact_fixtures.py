#!/usr/bin/env python3
"""The JSON fixtures of contacts, connections, requests and addresses (Tests/ChatCoreTests/Fixtures/contacts, whose
exact bytes the Swift tests compare with what the core writes) checked against the official Python package's types:
each file `<Type>[.<case>].json` must be a valid `<Type>`, with its fields in the type's (the Haskell record's) order."""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from api_types import Schema  # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "ChatCoreTests" / "Fixtures" / "contacts"


def main() -> int:
    schema = Schema.installed()
    classes = schema.modules["types"].classes
    failures = 0
    files = sorted(FIXTURES.glob("*.json"))
    if not files:
        print(f"no fixtures in {FIXTURES}")
        return 1
    for path in files:
        type_name = path.name.split(".")[0]
        value = json.loads(path.read_text())
        errors = schema.check_type(value, type_name)
        order = [k for k in classes[type_name] if k in value]
        if list(value) != order:
            errors.append(f"field order {list(value)} is not the type's {order}")
        status = "ok" if not errors else "FAILED"
        print(f"{status:6} {path.name} as {type_name}")
        for e in errors:
            print(f"         {e}")
        failures += bool(errors)
    print(f"{len(files) - failures}/{len(files)} fixtures valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

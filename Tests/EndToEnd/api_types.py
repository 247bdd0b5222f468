"""Checks the core's JSON against the types generated for the official Python client (`simplex-chat` on PyPI,
pinned in Tests/EndToEnd/requirements.txt): `types/_types.py`, `_responses.py` and `_events.py`.

The package's sources are read with `ast`, not imported, so the check needs none of its native parts. A value
validates when every required key is present with the right JSON type, optional keys are absent or well typed,
tagged unions carry a known tag, and there is no key the types do not know, except the newer keys and union members
chat-api.md documents (`NEWER_KEYS`, `NEWER_MEMBERS`). Where the package's types are wrong — they come from the
Haskell type definitions, while the official core writes what its encoders write — `type_corrections.py` overrides
them, each entry with the encoder that proves it.

Responses and events the package does not list (it covers what bots use) are checked field by field: a field whose
name has one type across all the package's responses and events (`user` is a User, `groupInfo` a GroupInfo, …) is
validated as that type; the others are counted as unchecked.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib

from type_corrections import CORRECTIONS

# Keys chat-api.md documents that the 7.0.2 types predate: (type name, key) → the spec's words.
NEWER_KEYS: dict[tuple[str, str], str] = {}

# Members of the package's unions that chat-api.md documents and the 7.0.2 types leave out (they cover what bots
# use), written in the package's own notation and added to its types: union name → (new members, their definitions).
NEWER_MEMBERS: dict[str, tuple[list[str], str]] = {
    # chat-api.md §8.1 `errorDatabase` {databaseError} and §8.5 DatabaseError, SQLiteError: `/_db encryption`,
    # `/db test key`.
    "ChatError": (["ChatError_errorDatabase"], '''
class ChatError_errorDatabase(TypedDict):
    type: Literal["errorDatabase"]
    databaseError: "DatabaseError"

class DatabaseError_errorEncrypted(TypedDict):
    type: Literal["errorEncrypted"]

class DatabaseError_errorPlaintext(TypedDict):
    type: Literal["errorPlaintext"]

class DatabaseError_errorNoFile(TypedDict):
    type: Literal["errorNoFile"]
    dbFile: str

class DatabaseError_errorExport(TypedDict):
    type: Literal["errorExport"]
    sqliteError: "SQLiteError"

class DatabaseError_errorOpen(TypedDict):
    type: Literal["errorOpen"]
    sqliteError: "SQLiteError"

DatabaseError = (DatabaseError_errorEncrypted | DatabaseError_errorPlaintext | DatabaseError_errorNoFile
                 | DatabaseError_errorExport | DatabaseError_errorOpen)

class SQLiteError_errorNotADatabase(TypedDict):
    type: Literal["errorNotADatabase"]

class SQLiteError_error(TypedDict):
    type: Literal["error"]
    dbError: str

SQLiteError = SQLiteError_errorNotADatabase | SQLiteError_error
'''),
}

# Fields of responses the package does not list whose type it does have: (response tag, key) → type.
EXTRA_FIELDS: dict[tuple[str, str], str] = {
    ("userPrivacy", "updatedUser"): "T.User",  # chat-api.md §5: userPrivacy {user, updatedUser}
    ("apiChat", "chat"): "T.AChat",  # apiChat {user, chat: AChat, navInfo?}
    ("chatCleared", "chatInfo"): "T.ChatInfo",  # chatCleared {user, chatInfo}
    ("forwardPlan", "itemsCount"): "int",  # forwardPlan {user, itemsCount, chatItemIds, forwardConfirmation?}
    ("forwardPlan", "chatItemIds"): "list[int]",
}


class Module:
    def __init__(self, name: str, source: str):
        self.name = name
        self.classes: dict[str, dict[str, tuple[ast.expr, bool]]] = {}
        self.aliases: dict[str, ast.expr] = {}
        for node in ast.parse(source).body:
            if isinstance(node, ast.ClassDef):
                fields = {}
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        annotation = _unquote(item.annotation)
                        required = True
                        if isinstance(annotation, ast.Subscript) and _name(annotation.value) == "NotRequired":
                            annotation, required = _unquote(annotation.slice), False
                        fields[item.target.id] = (annotation, required)
                self.classes[node.name] = fields
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.aliases[node.targets[0].id] = node.value


def _unquote(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return ast.parse(node.value, mode="eval").body
    return node


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _union_members(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union_members(node.left) + _union_members(node.right)
    return [node]


class Schema:
    def __init__(self, package_dir: pathlib.Path):
        self.modules = {
            name: Module(name, (package_dir / "types" / f"_{name}.py").read_text(encoding="utf-8"))
            for name in ("types", "responses", "events")
        }
        types = self.modules["types"]
        for union, (members, source) in NEWER_MEMBERS.items():
            newer = Module("types", source)
            types.classes.update(newer.classes)
            types.aliases.update(newer.aliases)
            for member in members:
                types.aliases[union] = ast.BinOp(left=types.aliases[union], op=ast.BitOr(), right=ast.Name(member))
        self._correct(types)
        self.responses = self._tags("responses", "ChatResponse")
        self.events = self._tags("events", "ChatEvent")
        self.field_types = self._field_types()
        self.unchecked: dict[str, set[str]] = {}

    @staticmethod
    def _correct(types: Module) -> None:
        """Applies `type_corrections.CORRECTIONS`; an entry that no longer matches the package fails loudly."""
        for entry in CORRECTIONS:
            annotation = ast.parse(str(entry["annotation"]), mode="eval").body
            if "alias" in entry:
                name = str(entry["alias"])
                if name not in types.aliases:
                    raise SystemExit(f"type correction for unknown alias {name}")
                types.aliases[name] = annotation
            else:
                cls_name, key = entry["field"]
                if key not in types.classes.get(cls_name, {}):
                    raise SystemExit(f"type correction for unknown field {cls_name}.{key}")
                types.classes[cls_name][key] = (annotation, types.classes[cls_name][key][1])

    @classmethod
    def installed(cls) -> "Schema":
        spec = importlib.util.find_spec("simplex_chat")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("the simplex-chat package is not installed (Tests/EndToEnd/requirements.txt)")
        return cls(pathlib.Path(list(spec.submodule_search_locations)[0]))

    def _tags(self, module: str, union: str) -> dict[str, str]:
        """The union's members by their `type` literal."""
        tags = {}
        m = self.modules[module]
        for member in _union_members(m.aliases[union]):
            name = _name(member)
            literal = m.classes[name]["type"][0]
            tags[literal.slice.value] = name
        return tags

    def _field_types(self) -> dict[str, tuple[str, ast.expr]]:
        """Field name → its type, for the names that have one type in every response and event."""
        seen: dict[str, set[str]] = {}
        example: dict[str, tuple[str, ast.expr]] = {}
        for module in ("responses", "events"):
            for fields in self.modules[module].classes.values():
                for key, (annotation, _) in fields.items():
                    if key == "type":
                        continue
                    seen.setdefault(key, set()).add(ast.unparse(annotation))
                    example[key] = (module, annotation)
        return {key: example[key] for key, kinds in seen.items() if len(kinds) == 1}

    # MARK: validation

    def check_message(self, value: object) -> list[str]:
        """A response or event (`{"type": …}` inside `resp` or `result`): the problems found."""
        errors: list[str] = []
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            return [f"not a tagged object: {value!r:.200}"]
        tag = value["type"]
        if tag in self.responses:
            self._check(value, ast.Name(self.responses[tag]), "responses", tag, errors)
        elif tag in self.events:
            self._check(value, ast.Name(self.events[tag]), "events", tag, errors)
        else:
            for key, field in value.items():
                if key == "type":
                    continue
                if (tag, key) in EXTRA_FIELDS:
                    self._check(field, ast.parse(EXTRA_FIELDS[(tag, key)], mode="eval").body, "types", f"{tag}.{key}",
                                errors)
                elif key in self.field_types:
                    module, annotation = self.field_types[key]
                    self._check(field, annotation, module, f"{tag}.{key}", errors)
                else:
                    self.unchecked.setdefault(tag, set()).add(key)
        return errors

    def check_type(self, value: object, type_name: str) -> list[str]:
        """A value of one of the package's types (`User`, `ChatItem`, …)."""
        errors: list[str] = []
        self._check(value, ast.Name(type_name), "types", type_name, errors)
        return errors

    def _resolve(self, name: str, module: str) -> tuple[str, str]:
        if name.startswith("T."):
            return name[2:], "types"
        return name, module

    def _check(self, value: object, node: ast.expr, module: str, path: str, errors: list[str]) -> None:
        name = _name(node)
        if name is not None:
            self._check_named(value, name, module, path, errors)
            return
        if isinstance(node, ast.Constant) and node.value is None:
            if value is not None:
                errors.append(f"{path}: expected null, got {value!r:.80}")
            return
        if isinstance(node, ast.BinOp):
            self._check_union(value, _union_members(node), module, path, errors)
            return
        if isinstance(node, ast.Subscript):
            head = _name(node.value)
            if head == "list":
                if not isinstance(value, list):
                    errors.append(f"{path}: expected a list, got {value!r:.80}")
                    return
                for i, item in enumerate(value):
                    self._check(item, _unquote(node.slice), module, f"{path}[{i}]", errors)
                return
            if head == "dict":
                if not isinstance(value, dict):
                    errors.append(f"{path}: expected an object, got {value!r:.80}")
                    return
                _, item_type = node.slice.elts
                for key, item in value.items():
                    self._check(item, _unquote(item_type), module, f"{path}.{key}", errors)
                return
            if head == "Literal":
                options = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
                allowed = [o.value for o in options]
                if value not in allowed:
                    errors.append(f"{path}: {value!r:.80} is not one of {allowed}")
                return
        errors.append(f"{path}: unsupported annotation {ast.unparse(node)}")

    def _check_named(self, value: object, name: str, module: str, path: str, errors: list[str]) -> None:
        scalars = {"int": int, "str": str, "bool": bool, "float": (int, float)}
        if name in scalars:
            ok = isinstance(value, scalars[name]) and (name == "bool" or not isinstance(value, bool))
            if not ok:
                errors.append(f"{path}: expected {name}, got {value!r:.80}")
            return
        if name in ("object", "Any"):
            return
        name, module = self._resolve(name, module)
        m = self.modules[module]
        if name in m.classes:
            self._check_record(value, name, m.classes[name], module, path, errors)
        elif name in m.aliases:
            self._check(value, _unquote(m.aliases[name]), module, path, errors)
        else:
            errors.append(f"{path}: unknown type {name}")

    def _check_record(self, value, name, fields, module, path, errors) -> None:
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a {name} object, got {value!r:.80}")
            return
        for key, (annotation, required) in fields.items():
            if key in value:
                self._check(value[key], annotation, module, f"{path}.{key}", errors)
            elif required:
                errors.append(f"{path}: {name} lacks required key {key!r}")
        for key in value:
            if key not in fields and (name, key) not in NEWER_KEYS:
                errors.append(f"{path}: {name} has no key {key!r}")

    def _check_union(self, value, members, module, path, errors) -> None:
        resolved = [self._resolve(_name(m), module) if _name(m) else (None, module) for m in members]
        records = [(n, mod) for n, mod in resolved if n and n in self.modules[mod].classes]
        tagged = len(records) == len(members) and all("type" in self.modules[mod].classes[n] for n, mod in records)
        if tagged:
            if not isinstance(value, dict) or "type" not in value:
                errors.append(f"{path}: expected a tagged object, got {value!r:.80}")
                return
            for n, mod in records:
                literal = self.modules[mod].classes[n]["type"][0]
                if literal.slice.value == value["type"]:
                    self._check_record(value, n, self.modules[mod].classes[n], mod, path, errors)
                    return
            errors.append(f"{path}: unknown tag {value['type']!r}")
            return
        for member in members:
            attempt: list[str] = []
            self._check(value, member, module, path, attempt)
            if not attempt:
                return
        errors.append(f"{path}: {value!r:.80} matches none of {' | '.join(ast.unparse(m) for m in members)}")

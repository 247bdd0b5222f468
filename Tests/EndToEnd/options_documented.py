#!/usr/bin/env python3
"""The options of both roles, written down once: what `simplex-host --help` and `simplex-host controller --help`
print is what the parsers read, and the README's option tables are made from those two texts.

    options_documented.py .build/debug/simplex-host           check (exit 1 on a difference)
    options_documented.py .build/debug/simplex-host --write   rewrite the README's tables from --help

Checks: every option a parser reads (a `case "--…"` of Sources/simplex-host/Options.swift and ControllerOptions.swift)
is in its role's --help and every option --help names is read; the README's tables, between their markers, are the
ones made from --help now. Python 3 standard library only.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
README = os.path.join(ROOT, "README.md")
ROLES = [
    ("host", [], "Sources/simplex-host/Options.swift"),
    ("controller", ["controller"], "Sources/simplex-host/ControllerOptions.swift"),
]
DESCRIPTION = 25  # the column --help starts descriptions in
OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def parsed_options(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    return {o for o in re.findall(r'"(--[a-z][a-z0-9-]*)"', text)} - {"--help"}


def help_text(binary, words):
    run = subprocess.run([binary, *words, "--help"], capture_output=True, text=True, timeout=30)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(['simplex-host', *words, '--help'])} exited {run.returncode}: {run.stderr}")
    return run.stdout


def option_rows(text):
    """The option list of a --help text: (spelling, description) per entry. An entry starts with two spaces and
    `--`; its description starts in column 25 of that line, or on the lines below when the spelling is longer."""
    rows = []
    for line in text.splitlines():
        if line.startswith("  --"):
            if len(line) > DESCRIPTION and line[DESCRIPTION - 1] == " ":
                rows.append([line[2:DESCRIPTION].strip(), line[DESCRIPTION:].strip()])
            else:
                rows.append([line.strip(), ""])
        elif rows and line.startswith(" " * DESCRIPTION) and line.strip():
            rows[-1][1] = (rows[-1][1] + " " + line.strip()).strip()
    return rows


def escaped(cell):
    """A table cell: `|` would end it, even between backquotes."""
    return cell.replace("|", "\\|")


def table(rows):
    out = ["| option | what it does |", "| --- | --- |"]
    for spelling, description in rows:
        cell = ", ".join(f"`{part.strip()}`" for part in spelling.split(", "))
        out.append(f"| {escaped(cell)} | {escaped(description)} |")
    return "\n".join(out)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary, write = argv[1], argv[2:] == ["--write"]
    failures = 0
    tables = {}
    for role, words, source in ROLES:
        text = help_text(binary, words)
        rows = option_rows(text)
        documented = {o for spelling, _ in rows for o in OPTION.findall(spelling)}
        read = parsed_options(source)
        for option in sorted(read - documented):
            print(f"FAIL {role}: {option} is read by {source} but not in --help")
            failures += 1
        for option in sorted(documented - read):
            print(f"FAIL {role}: --help names {option}, which {source} does not read")
            failures += 1
        if not read - documented and not documented - read:
            print(f"ok   {role}: the {len(read)} options read are the ones --help names")
        tables[role] = table(rows)
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    updated = readme
    for role, text in tables.items():
        begin, end = f"<!-- options:{role} -->", f"<!-- /options:{role} -->"
        pattern = re.compile(re.escape(begin) + r"\n(?:.*?\n)?" + re.escape(end), re.S)
        if not pattern.search(updated):
            print(f"FAIL README: no {begin} … {end} table")
            failures += 1
            continue
        updated = pattern.sub(lambda _: f"{begin}\n{text}\n{end}", updated)
    if write:
        with open(README, "w", encoding="utf-8") as f:
            f.write(updated)
        print("README tables written")
    elif updated != readme:
        print("FAIL README: the option tables differ from --help; run Tests/EndToEnd/options_documented.py BINARY --write")
        failures += 1
    else:
        print("ok   README: the option tables are the ones --help gives")
    print(f"{'failed' if failures else 'passed'}: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Checks the include layering that ARCHITECTURE.md's rooms table states.

Each row of the table names a room (a folder) and, in its last column, the rooms it depends on
(in backticks). A file may include headers of its own room and of every room reachable through
those lists; the runtime includes nothing of compiler/; only server/ and tools/tvms include JSON or
LSP headers (nlohmann, Boost), and runtime/safetensors.cpp reads its format's JSON header. A room listed as depending on "(everything)" (tests/) is not checked.
Ops are used by identity: no kernel builder (compiler/op/legalize_*.cpp) reads its op's name and no
pass compares a call's op name (they compare Call::def with op::builtin).
Target kinds are declared once, in runtime/target_kind.{h,cpp}: no other file of a checked room
holds a string literal that is a kind's name ("cuda", "llvm", ...); a literal that means something
else (an --emit format) says so with `not a target kind` in a comment on its line.
Diagnostic codes are an enum generated from compiler/diagnostics/catalogue.def: no file of a checked
room spells one as a string literal ("TVS201"); code strings exist only where codeName/parseCode
convert at the edges.
Exits 1 listing every violation, 0 when the code keeps to the table.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
root = os.path.abspath(root)
text = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()

deps = {}        # room -> the rooms it lists
unchecked = set()
for line in text.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 3 or not cells[0].startswith("`"):
        continue
    room = cells[0].strip("`").rstrip("/")
    listed = [d.rstrip("/") for d in re.findall(r"`([^`]+)`", cells[-1])]
    deps[room] = listed
    if "(everything)" in cells[-1]:
        unchecked.add(room)

if len(deps) < 10:
    sys.exit(f"check_layering: found only {len(deps)} rooms in ARCHITECTURE.md's table; is the table still there?")


def room_of(path):
    best = None
    for r in deps:
        if path == r or path.startswith(r + "/"):
            if best is None or len(r) > len(best):
                best = r
    return best


def reachable(room):
    seen, todo = {room}, [room]
    while todo:
        for d in deps.get(todo.pop(), []):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


KIND_TABLE = ("runtime/target_kind.h", "runtime/target_kind.cpp")
table_source = open(os.path.join(root, KIND_TABLE[1]), encoding="utf-8").read()
kind_names = set(re.findall(r'push_back\(\{"(\w+)"', table_source)) | set(re.findall(r'\{"(\w+)", \d+\}', table_source))
if not {"llvm", "cuda"} <= kind_names:
    sys.exit(f"check_layering: read only {sorted(kind_names)} as target kinds from {KIND_TABLE[1]}; is the table still there?")


def string_literals(source):
    """(line, text) of each ordinary string literal of C++ source, comments and raw strings skipped."""
    out, i, line, n = [], 0, 1, len(source)
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif source.startswith("//", i):
            i = source.find("\n", i) if source.find("\n", i) >= 0 else n
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += source.count("\n", i, end)
            i = end
        elif c == "R" and source.startswith('R"', i) and (i == 0 or not (source[i - 1].isalnum() or source[i - 1] == "_")):
            open_paren = source.find("(", i)
            close = source.find(")" + source[i + 2:open_paren] + '"', open_paren)
            end = n if close < 0 else close + len(source[i + 2:open_paren]) + 2
            line += source.count("\n", i, end)
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c and source[j] != "\n":
                j += 2 if source[j] == "\\" else 1
            if c == '"':
                out.append((line, source[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


problems = []
checked = 0
for dirpath, dirnames, files in os.walk(root):
    rel_dir = os.path.relpath(dirpath, root)
    dirnames[:] = [d for d in dirnames if d not in ("node_modules", ".git") and not (rel_dir == "." and d.startswith("build"))]
    for name in files:
        if not name.endswith((".cpp", ".h", ".c")):
            continue
        path = os.path.relpath(os.path.join(dirpath, name), root)
        room = room_of(path)
        if room is None or room in unchecked:
            continue
        checked += 1
        allowed = reachable(room)
        source = open(os.path.join(root, path), encoding="utf-8", errors="replace").read()
        for m in re.finditer(r'#include\s+([<"])([^>"]+)[>"]', source):
            header = m.group(2)
            if m.group(1) == '"':
                target = room_of(header)
                if target and target not in allowed:
                    problems.append(f"{path}: includes {header} ({target}), which {room} may not reach")
                if room == "runtime" and header.startswith("compiler/"):
                    problems.append(f"{path}: the runtime includes {header} (nothing of compiler/)")
            # JSON and LSP in the server and the CLI; the one JSON a file format holds (safetensors'
            # header) read where that format is.
            json_reader = path == "runtime/safetensors.cpp" and header.startswith("nlohmann/")
            if (header.startswith("nlohmann/") or header.startswith("boost/")) and room not in ("server", "tools/tvms") and not json_reader:
                problems.append(f"{path}: includes {header}; only server/, tools/tvms (and runtime/safetensors.cpp, JSON) speak JSON/LSP")

        if path not in KIND_TABLE:
            lines = source.split("\n")
            for line, literal in string_literals(source):
                if literal in kind_names and "not a target kind" not in lines[line - 1]:
                    problems.append(f'{path}:{line}: the target kind "{literal}" spelled outside {KIND_TABLE[1]} (ask the table: runtime/target_kind.h)')
                if re.fullmatch(r"TVS\d{3}", literal):
                    problems.append(f'{path}:{line}: the diagnostic code "{literal}" as a string (write diag::Code::{literal})')
        if re.match(r"compiler/op/legalize_", path) and re.search(r"def\.name|scriptName\(\)\s*==", source):
            problems.append(f"{path}: a kernel builder reads its op's name (bind a builder per op in the registry)")
        if room in ("compiler/transform", "compiler/analysis") and re.search(r'(->|\.)op\s*[!=]=\s*"', source):
            problems.append(f"{path}: compares a call's op name (compare Call::def with op::builtin)")

if checked < 50:
    sys.exit(f"check_layering: checked only {checked} files; the room paths no longer match the tree")
for p in problems:
    print(p)
print(f"check_layering: {checked} files in {len(deps)} rooms, {len(problems)} violations")
sys.exit(1 if problems else 0)

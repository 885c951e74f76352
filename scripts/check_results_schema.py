#!/usr/bin/env python3
"""Checks results.json files against docs/results-schema.md, as a reader who has only the document.

usage: check_results_schema.py [--own=KERNEL ...] SCHEMA.md FILE.json [FILE.json ...]

The document's tables are the schema: a section's table lists the keys of one kind of object (its
first column), their types (the second: `{"a", "b"}` or `{`a`, `b`}` there names the keys of the
objects an array holds) and meanings. Every key a file holds must be documented where it is, and
every documented key must be there unless its row says when it is absent ("absent", "only").
`params` and `values` are looked up in the table of params and values by kernel; a kernel of a
user's own (--own=NAME) names its params and values as it likes. Keys of objects
typed "object of string" are free (a run's `extra`, `invalid`, `dropped`). Prints one line per
kind of finding, `FILE: PATH: what`, and exits 1 when there is one, 0 when every file is as documented.
"""
import json
import re
import sys

# Headings (or the paragraph that opens a table) and the object paths their table describes.
SECTIONS = [
    (r"^## Top level", ["$"]),
    (r"^### `context`$", ["$.context"]),
    (r"^`context\.build`", ["$.context.build"]),
    (r"^`context\.machine`", ["$.context.machine"]),
    (r"^### `stopped`", ["$.stopped"]),
    (r"^## `results\[\]`", ["$.results[]"]),
    (r"^### `stats`", ["$.results[].stats"]),
    (r"^## `fits\[\]`", ["$.fits[]"]),
    (r"^### break test", ["$.fits[].break_tests[]", "$.commtest[].break_tests[]"]),
    (r"^## `bandwidth\[\]`", ["$.bandwidth[]"]),
    (r"^## Derived sections", ["derived"]),
    (r"^### `commtest\[\]`", ["$.commtest[]"]),
    (r"^### `params` and `values` by kernel", ["kernels"]),
]
OPTIONAL = re.compile(r"\babsent\b|\bonly\b|left out")


class Key:
    def __init__(self, optional=False, free=False):
        self.optional = optional
        self.free = free          # an object whose keys are data, not schema
        self.children = {}        # keys of the object (or of an array's objects) it holds


def outside_parentheses(text, brackets=""):
    """The backticked spans of a cell (and the characters of `brackets`) outside parentheses,
    which hold comments: (token, what the backticks enclose)."""
    depth = 0
    for m in re.finditer(r"`([^`]*)`|[()" + re.escape(brackets) + "]", text):
        tok = m.group(0)
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            yield tok, m.group(1)


def is_name(inner):
    # `ring.<name>`: any name after the prefix (the NIST applications' parameters).
    return (re.fullmatch(r"[a-z_][a-z_0-9]*(\.<name>)?", inner) is not None and inner not in ("null", "true", "false"))


def documented(key, names):
    """Whether `key` is one of `names`, or matches a `prefix.<name>` among them."""
    return key in names or any(n.endswith(".<name>") and key.startswith(n[: -len("<name>")]) for n in names)


def names(text):
    """The key names a cell lists: backticked identifiers outside parentheses, or quoted ones
    inside a backticked `{"a", "b"}`."""
    out = []
    for _, inner in outside_parentheses(text):
        if inner.startswith("{"):
            out += re.findall(r'"([a-z_0-9]+)"', inner)
        elif is_name(inner):
            out.append(inner)
    return out


def tree(text):
    """Parses a fields cell of the derived sections: `a`, `b` [{`c`, `d`}], `e` {`f`} into keys."""
    keys, stack, last = {}, [], None
    current = keys
    for tok, inner in outside_parentheses(text, "[]{}"):
        if tok in "[{":
            # A bracket right after a name holds that name's keys; one after another bracket
            # (`[{`) the same keys.
            stack.append(current)
            if last is not None:
                current = last.children
            last = None
        elif tok in "]}":
            if stack:
                current = stack.pop()
            last = None
        elif is_name(inner):
            last = current.setdefault(inner, Key(free=inner == "group"))
    return keys


def shape(text):
    """A note's words with every number as N."""
    return re.sub(r"[0-9]+(\.[0-9]+)?", "N", text)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_schema(path):
    objects, kernels, notes = {}, {}, []
    section, header = None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        for pattern, paths in SECTIONS:
            if re.match(pattern, line):
                section = paths
        if not line.startswith("|") or section is None or re.match(r"^\|\s*-", line):
            if not line.startswith("|"):
                header = None
            continue
        row = cells(line)
        if i + 1 < len(lines) and re.match(r"^\|\s*-", lines[i + 1]):
            header = row[0]  # a table's first line: what its rows are
            continue
        # Only the tables of keys (and of kernels) are schema; the others (flags, notes, files,
        # worked examples) explain values.
        if header == "note begins":  # the context's notes
            # A note of the file begins with the first two words of one in the table, any
            # number standing for any other.
            for text in re.findall(r"`([^`]*)`", row[0]):
                if not text.startswith("..."):
                    notes.append(" ".join(shape(text).split()[:2]))
            continue
        if header not in ("key", "kernel") or len(row) < 2:
            continue
        if section == ["kernels"]:
            # "(every record ...)": the params and values any kernel's records may have.
            for k in ["every"] if row[0].startswith("(every") else re.findall(r"[a-z_]+", row[0]):
                params, values = kernels.setdefault(k, (set(), set()))
                params.update(names(row[1]))
                if len(row) > 2:
                    values.update(names(row[2]))
            continue
        if section == ["derived"]:
            for top in names(row[0]):
                key = objects.setdefault("$", {}).setdefault(top, Key())
                key.children.update(tree(row[2]))
            continue
        rest = " ".join(row[1:])
        for name in names(row[0]):
            key = Key(optional=bool(OPTIONAL.search(rest)), free="object of string" in row[1])
            for child in names(row[1]):
                key.children[child] = Key()
            for p in section:
                objects.setdefault(p, {})[name] = key
    objects["context notes"] = notes
    return objects, kernels


def check(doc, objects, kernels, own, out):
    def walk(value, path, keys, where):
        if isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, path + "[]", keys, f"{where}[{i}]")
            return
        if not isinstance(value, dict) or keys is None:
            return
        for k, v in value.items():
            if k not in keys:
                out.append(f"{where}: key '{k}' is not in the schema ({path})")
                continue
            key = keys[k]
            child = path + "." + k
            if key.free:
                continue
            if k in ("params", "values") and path == "$.results[]":
                continue
            documented = objects.get(child + ("[]" if isinstance(v, list) else ""), None)
            merged = dict(key.children)
            if documented:
                merged.update(documented)
            walk(v, child, merged if merged else None, f"{where}.{k}")
        for k, key in keys.items():
            if k not in value and not key.optional:
                out.append(f"{where}: key '{k}' is missing, and the schema gives no condition for its absence ({path})")

    walk(doc, "$", objects.get("$"), "$")
    for i, note in enumerate(doc.get("context", {}).get("notes", [])):
        if not any(shape(note).startswith(p) for p in objects["context notes"]):
            out.append(f"$.context.notes[{i}]: '{note}' begins as no note of the schema's table does")
    generic_params, generic_values = kernels.get("every", (set(), set()))
    for i, r in enumerate(doc.get("results", [])):
        params, values = kernels.get(r.get("kernel"), (None, None))
        if r.get("kernel") in own:
            continue
        if params is None:
            out.append(f"$.results[{i}]: kernel '{r.get('kernel')}' has no row in the table of params and values")
            continue
        for k in r.get("params", {}):
            if not documented(k, params | generic_params):
                out.append(f"$.results[{i}].params: '{k}' is not a param of {r['kernel']} in the schema")
        for k in r.get("values", {}):
            if k not in values | generic_values:
                out.append(f"$.results[{i}].values: '{k}' is not a value of {r['kernel']} in the schema")


def main(argv):
    own = {a[len("--own="):] for a in argv[1:] if a.startswith("--own=")}
    argv = [argv[0]] + [a for a in argv[1:] if not a.startswith("--own=")]
    if len(argv) < 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    objects, kernels = read_schema(argv[1])
    if "$" not in objects or "$.results[]" not in objects or not kernels:
        print(f"{argv[1]}: no schema tables found", file=sys.stderr)
        return 2
    failed = False
    for path in argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read: {e}")
            failed = True
            continue
        findings = []
        check(doc, objects, kernels, own, findings)
        # One line per kind of finding: the first place it was found, and how often.
        kinds = {}
        for line in findings:
            kinds.setdefault(re.sub(r"\[[0-9]+\]", "[]", line), []).append(line)
        for lines in kinds.values():
            more = f" (and {len(lines) - 1} more like it)" if len(lines) > 1 else ""
            print(f"{path}: {lines[0]}{more}")
        failed |= bool(findings)
        if not findings:
            print(f"{path}: as documented ({len(doc.get('results', []))} records)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

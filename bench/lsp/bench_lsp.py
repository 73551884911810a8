#!/usr/bin/env python3
"""bench/lsp: the real `tvms lsp` over pipes on a large module, as an editor drives it.

usage: bench_lsp.py TVMS_BINARY FILE [EDITS]   (bench/run_all.sh passes the generated 10k-line module)

Measures, with the server's debounce set to 0 (initializationOptions.debounceMs):
  - open: didOpen -> its publishDiagnostics;
  - keystroke: a didChange -> the publishDiagnostics of that version (p50, p99, max), over a mix of
    edit kinds, each followed by its undo and reported apart: EDITS one-character edits into a comment
    and EDITS into a variable's use (which changes the diagnostics), EDITS/4 before the first token of a
    dataflow block's first binding; EDITS/10 each of a dedent that closes a function, a new
    @R.function typed line by line above another, a 200-line paste, a whole function deleted;
  - hover and completion latency on random positions once the analysis is current;
  - resident memory with the document open, per source byte.
The anchor is CPython's ast.parse of the same text, timed in this process: what one parse of the file
costs in Python, the cheapest thing a Python-based server would redo per keystroke.
"""
import ast
import json
import os
import random
import statistics
import subprocess
import sys
import time


class Server:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""
        self.next_id = 0

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                n = int(self.buf[: end].split(b":")[1])
                if len(self.buf) >= end + 4 + n:
                    msg = json.loads(self.buf[end + 4: end + 4 + n])
                    self.buf = self.buf[end + 4 + n:]
                    return msg
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                sys.exit("the server closed its output")
            self.buf += chunk

    def request(self, method, params):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == rid:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics(self, version):
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version:
                return m["params"]["diagnostics"]

    def rss(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0


def position(text, offset):
    """LSP position (UTF-16 columns; the generated modules are ASCII)."""
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    binary, path = sys.argv[1], sys.argv[2]
    edits = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    text = open(path).read()
    uri = "file://" + os.path.abspath(path)
    rng = random.Random(1)

    t = time.perf_counter()
    for _ in range(5):
        ast.parse(text)
    anchor = (time.perf_counter() - t) / 5

    s = Server(binary)
    s.request("initialize", {"processId": os.getpid(), "capabilities": {}, "initializationOptions": {"debounceMs": 0}})
    s.notify("initialized", {})
    t = time.perf_counter()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    s.diagnostics(1)
    open_ms = (time.perf_counter() - t) * 1000
    rss = s.rss()

    version = 1

    def change(start, end, new_text):
        """One didChange replacing text[start:end]; returns ms to the publishDiagnostics of its version."""
        nonlocal version, text
        version += 1
        rng_ = {"start": position(text, start), "end": position(text, end)}
        t = time.perf_counter()
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                            "contentChanges": [{"range": rng_, "text": new_text}]})
        s.diagnostics(version)
        ms = (time.perf_counter() - t) * 1000
        text = text[:start] + new_text + text[end:]
        return ms

    def starts(pattern, shift=0):
        return [i + shift for i in range(len(text)) if text.startswith(pattern, i)]

    def function_starts():
        return starts("    @R.function\n")

    # Each kind of edit, applied and undone, at random places (the text is the same after each pair).
    kinds = {}

    def typed(kind, places, ch="x"):
        at = rng.choice(places)
        kinds.setdefault(kind, []).extend([change(at, at, ch), change(at, at + len(ch), "")])

    comments, uses = starts("# step", len("# step")), starts("(lv", 2)
    first_bindings = starts("with R.dataflow():\n            ", len("with R.dataflow():\n            "))
    for k in range(edits):
        typed("type in a comment", comments)
        typed("type in a variable's use", uses)
        if k % 4 == 0:
            # Before the first token of a dataflow block's first binding: tree-sitter's whole-file
            # reparse of this edit costs ~150 ms at 10k lines (BASELINES.md).
            typed("type before a dataflow block's first binding", first_bindings)
    reps = max(10, edits // 10)
    body_lines = starts("\n            lv5", 1)
    for _ in range(reps):
        # A dedent that closes the function (the line leaves the function's body), then its undo.
        at = rng.choice(body_lines)
        ms = change(at, at + 8, "")
        kinds.setdefault("dedent a body line out of its function", []).extend([ms, change(at, at, " " * 8)])
    new_fn = ["    @R.function\n", '    def typed_fn(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):\n',
              "        return x\n", "\n"]
    for _ in range(reps):
        # A new @R.function typed line by line above an existing one, then deleted.
        at = rng.choice(function_starts())
        out = []
        for i, line in enumerate(new_fn):
            pos = at + sum(len(l) for l in new_fn[:i])
            out.append(change(pos, pos, line))
        out.append(change(at, at + sum(len(l) for l in new_fn), ""))
        kinds.setdefault("type a new @R.function above another", []).extend(out)
    fs = function_starts()
    template = text[fs[1]:fs[11]]  # ten generated functions, ~200 lines
    for n in range(reps):
        at = rng.choice(function_starts())
        pasted = template.replace("def layer_", f"def pasted{n}_")
        kinds.setdefault("paste a 200-line block of functions", []).extend([change(at, at, pasted), change(at, at + len(pasted), "")])
    for _ in range(reps):
        fs = function_starts()
        i = rng.randrange(1, len(fs) - 1)
        removed = text[fs[i]:fs[i + 1]]
        kinds.setdefault("delete a whole function", []).extend([change(fs[i], fs[i + 1], ""), change(fs[i], fs[i], removed)])
    keystroke = [ms for v in kinds.values() for ms in v]

    hover, completion = [], []
    names = [i + 12 for i in range(len(text)) if text.startswith("            lv", i)]
    for _ in range(200):
        at = rng.choice(names)
        t = time.perf_counter()
        r = s.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position(text, at)})
        hover.append((time.perf_counter() - t) * 1000)
        assert r.get("result"), r
    calls = [i + 2 for i in range(len(text)) if text.startswith("R.add(", i)]
    for _ in range(200):
        at = rng.choice(calls)
        t = time.perf_counter()
        r = s.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": position(text, at)})
        completion.append((time.perf_counter() - t) * 1000)
        assert r["result"]["items"], r
    status = s.request("tvms/status", {})["result"]
    s.request("shutdown", None)
    s.notify("exit", None)
    s.p.wait(timeout=10)

    lines = text.count("\n")
    print(f"== bench/lsp: {os.cpu_count()} cores, {lines:,} lines ({len(text):,} bytes), debounce 0")
    print(f"   reproduce: python3 bench/lsp/bench_lsp.py {binary} {path} {edits}")
    print(f"   anchor: CPython {sys.version.split()[0]} ast.parse of the same text: {anchor*1000:.1f} ms")
    print("| measure | p50 | p99 | max | goal | vs ast.parse (p50) |")
    print("|---|---|---|---|---|---|")
    print(f"| keystroke -> publishDiagnostics, all kinds ({len(keystroke)} edits) | {pct(keystroke, 50):.2f} ms | {pct(keystroke, 99):.2f} ms "
          f"| {max(keystroke):.1f} ms | <= 3 ms p50, <= 10 ms p99 | {pct(keystroke, 50)/(anchor*1000):.3f}x |")
    for kind, v in kinds.items():
        print(f"| - {kind} ({len(v)}, each with its undo) | {pct(v, 50):.2f} ms | {pct(v, 99):.2f} ms | {max(v):.1f} ms | | |")
    print(f"| hover (200) | {pct(hover, 50):.2f} ms | {pct(hover, 99):.2f} ms | {max(hover):.1f} ms | | |")
    print(f"| completion after R. (200) | {pct(completion, 50):.2f} ms | {pct(completion, 99):.2f} ms | {max(completion):.1f} ms | | |")
    print(f"| didOpen -> diagnostics | {open_ms:.0f} ms | | | | {open_ms/(anchor*1000):.2f}x |")
    print(f"| RSS with the document open | {rss/2**20:.1f} MiB = {rss/len(text):.0f} bytes per source byte | | | <= 150 B/B | |")
    print(f"   analyses: {status['incrementalAnalyses']} incremental, {status['wholeAnalyses']} whole")


if __name__ == "__main__":
    main()

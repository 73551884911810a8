#!/usr/bin/env python3
"""Fails when a doctest TEST_CASE name holds ';': CTest splits the discovered entry there, and each half
runs no test case (an entry that passes without testing anything). Commas are escaped by
doctest_discover_tests and are fine."""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
bad, seen = [], 0
for path in sorted(glob.glob(os.path.join(root, "**", "*.cpp"), recursive=True)):
    for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
        for name in re.findall(r'TEST_CASE\("((?:[^"\\]|\\.)*)"\)', line):
            seen += 1
            if ";" in name:
                bad.append("%s:%d: %s" % (os.path.relpath(path, root), n, name))
if seen < 50:
    sys.exit("check_test_names: found only %d test cases under %s" % (seen, root))
for b in bad:
    print(b)
print("check_test_names: %d test cases, %d with a ';'" % (seen, len(bad)))
sys.exit(1 if bad else 0)

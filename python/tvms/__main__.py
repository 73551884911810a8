"""python3 -m tvms ARGS...: the tvms command line (the same binary, its arguments and exit code)."""
import os
import sys

from ._library import binary_path


def main():
    binary = binary_path()
    os.execv(binary, [binary] + sys.argv[1:])


if __name__ == "__main__":
    main()

"""A PEP 517 build backend for the tvms package: a py3-none-any wheel of tvms/*.py, with the version
of the project (CMakeLists.txt's project(VERSION), the one version number). No dependencies, so pip
builds it offline."""
import base64
import hashlib
import os
import re
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = os.path.join(_HERE, "..", "tvms")


def _version():
    cmake = os.path.join(_HERE, "..", "..", "CMakeLists.txt")
    with open(cmake, encoding="utf-8") as f:
        found = re.search(r"project\(tvms VERSION ([0-9.]+)", f.read())
    if not found:
        raise RuntimeError("no project(tvms VERSION ...) in " + cmake)
    return found.group(1)


def _metadata(version):
    return "Metadata-Version: 2.1\nName: tvms\nVersion: %s\nSummary: Call tvms-built TVMScript modules from Python with DLPack tensors\nRequires-Python: >=3.8\n" % version


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _dist_info(version):
    return "tvms-%s.dist-info" % version


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    info = os.path.join(metadata_directory, _dist_info(version))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(version))
    return _dist_info(version)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    name = "tvms-%s-py3-none-any.whl" % version
    files = []
    for entry in sorted(os.listdir(_PACKAGE)):
        if entry.endswith(".py"):
            with open(os.path.join(_PACKAGE, entry), "rb") as f:
                files.append(("tvms/" + entry, f.read()))
    info = _dist_info(version)
    files.append((info + "/METADATA", _metadata(version).encode()))
    files.append((info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: tvms_build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(n, d) for n, d in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files:
            z.writestr(n, d)
    return name

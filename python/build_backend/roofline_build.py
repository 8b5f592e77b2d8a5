"""roofline_build.py — the package's own PEP 517 build backend: stdlib only, so `pip install
./python` builds offline inside pip's isolated build environment (which installs this backend's
requirements: none), with no setuptools or wheel download. It packs python/roofline into a
pure-Python wheel (and an sdist); the C library is not inside: it is found at run time
(roofline/_lib.py). PEP 660 editable installs are supported the simple way (a .pth file).
"""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

NAME, VERSION = "roofline", "0.1.0"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
TAG = "py3-none-any"
DIST = "%s-%s" % (NAME, VERSION)


def _metadata():
    readme = open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
            "Summary: Roofline performance analysis over libroofline: machines, model files, your "
            "own code and PyTorch modules\nRequires-Python: >=3.9\nProvides-Extra: torch\n"
            "Requires-Dist: torch; extra == \"torch\"\n"
            "Description-Content-Type: text/markdown\n\n%s" % (NAME, VERSION, readme))


def _package_files():
    root = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(root)):
        if name.endswith(".py"):
            yield "%s/%s" % (NAME, name), os.path.join(root, name)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _wheel(wheel_directory, files):
    path = os.path.join(wheel_directory, "%s-%s.whl" % (DIST, TAG))
    info = "%s.dist-info" % DIST
    extra = [("%s/METADATA" % info, _metadata().encode()),
             ("%s/WHEEL" % info, ("Wheel-Version: 1.0\nGenerator: roofline_build\n"
                                  "Root-Is-Purelib: true\nTag: %s\n" % TAG).encode())]
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in list(files) + extra:
            z.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        record.append("%s/RECORD,," % info)
        z.writestr("%s/RECORD" % info, "\n".join(record) + "\n")
    return os.path.basename(path)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory,
                  [(arc, open(src, "rb").read()) for arc, src in _package_files()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [("%s.pth" % NAME, (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    path = os.path.join(sdist_directory, "%s.tar.gz" % DIST)
    with tarfile.open(path, "w:gz") as t:
        for rel in ["pyproject.toml", "README.md", "build_backend/roofline_build.py"] + \
                [arc for arc, _ in _package_files()]:
            t.add(os.path.join(HERE, rel), arcname="%s/%s" % (DIST, rel))
        data = _metadata().encode()
        ti = tarfile.TarInfo("%s/PKG-INFO" % DIST)
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    return os.path.basename(path)


def _no_requirements(config_settings=None):
    return []


get_requires_for_build_wheel = _no_requirements
get_requires_for_build_editable = _no_requirements
get_requires_for_build_sdist = _no_requirements

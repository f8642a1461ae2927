"""Builds the evictionlab wheel from a built libEvictionLabNative.so.

Copies the Python package, the engine and every shared library it needs
that a Linux machine may lack (the Swift runtime and Foundation, SQLite,
GSL, zstd, XGBoost, ...: everything but the C and C++ runtimes) into
evictionlab/_native, stripped, with load-order.txt naming them dependencies
first: the package loads them by path before the engine, so the loader
never looks for them elsewhere. Writes dist/evictionlab-VERSION-py3-none-
linux_ARCH.whl (METADATA, WHEEL, RECORD with SHA-256 digests).

    python3 scripts/python_wheel.py LIBRARY VERSION OUTDIR
"""

import base64
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# What every Linux with a C and C++ runtime has (manylinux's own list, less
# the libraries manylinux keeps but a minimal container may lack).
SYSTEM = re.compile(r"^(libc|libm|libdl|librt|libpthread|libutil|libresolv|ld-linux.*|libgcc_s|libstdc\+\+|linux-vdso)\.so")


def needed(path: Path) -> list[str]:
    """The sonames `path` names as NEEDED."""
    out = subprocess.run(["readelf", "-d", str(path)], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)


def resolved(path: Path) -> dict[str, Path]:
    """Each soname the loader finds for `path`, with its file (ldd)."""
    out = subprocess.run(["ldd", str(path)], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m:
            found[m.group(1)] = Path(m.group(2))
        elif "not found" in line:
            sys.exit(f"error: {line.strip()}: install it before building the wheel (scripts/ensure-deps.sh)")
    return found


def main() -> None:
    library, version, outdir = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    root = Path(__file__).resolve().parent.parent
    files = resolved(library)
    bundled = {name: path for name, path in files.items() if not SYSTEM.match(name)}
    # Dependencies first: a depth-first walk of NEEDED, each library after
    # what it needs.
    order: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in bundled:
            return
        seen.add(name)
        for dependency in needed(bundled[name]):
            visit(dependency)
        order.append(name)

    for name in needed(library):
        visit(name)
    with tempfile.TemporaryDirectory() as work:
        stage = Path(work)
        package = stage / "evictionlab"
        shutil.copytree(root / "python" / "evictionlab", package, ignore=shutil.ignore_patterns("__pycache__", "_native"))
        native = package / "_native"
        native.mkdir()
        for name in order + [library.name]:
            source = bundled.get(name, library)
            target = native / name
            shutil.copyfile(source, target)
            subprocess.run(["strip", "--strip-unneeded", str(target)], check=True)
        (native / "load-order.txt").write_text("\n".join(order) + "\n")
        arch = platform.machine()
        tag = f"py3-none-linux_{arch}"
        info = stage / f"evictionlab-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\n"
            "Name: evictionlab\n"
            f"Version: {version}\n"
            "Summary: Cache replacement policies, trace replay and a stepped cache simulator, in-process\n"
            "Requires-Python: >=3.9\n"
            "Requires-Dist: numpy\n"
            "Requires-Dist: pandas\n"
        )
        (info / "WHEEL").write_text(
            f"Wheel-Version: 1.0\nGenerator: EvictionLab scripts/python_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n")
        records = []
        for path in sorted(p for p in stage.rglob("*") if p.is_file()):
            data = path.read_bytes()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{path.relative_to(stage)},sha256={digest},{len(data)}")
        records.append(f"evictionlab-{version}.dist-info/RECORD,,")
        (info / "RECORD").write_text("\n".join(records) + "\n")
        outdir.mkdir(parents=True, exist_ok=True)
        wheel = outdir / f"evictionlab-{version}-{tag}.whl"
        partial = wheel.with_suffix(".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in stage.rglob("*") if p.is_file()):
                member = zipfile.ZipInfo(str(path.relative_to(stage)), date_time=(2026, 1, 1, 0, 0, 0))
                member.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
                member.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(member, path.read_bytes())
        partial.replace(wheel)
        unpacked = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file())
        print(f"{wheel}: {wheel.stat().st_size / 2**20:.1f} MiB ({unpacked / 2**20:.1f} MiB unpacked), "
              f"{len(order)} bundled libraries")


if __name__ == "__main__":
    main()

import os

from adhere.scaffolds._workspace import WorkspaceLimits, collect_files


def make(root, files):
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def test_text_files_by_relative_path_sorted(tmp_path):
    make(tmp_path, {"b.txt": "b", "a/z.py": "print(1)\n", "a/b/c.md": "# c", ".env.example": "X=1"})
    files = collect_files(tmp_path)
    assert list(files) == [".env.example", "a/b/c.md", "a/z.py", "b.txt"]
    assert files["a/z.py"] == "print(1)\n"


def test_vcs_dependency_and_cache_dirs_are_skipped_anywhere(tmp_path):
    make(
        tmp_path,
        {
            ".git/config": "x",
            "node_modules/p/index.js": "x",
            "pkg/__pycache__/m.pyc": b"\x00\x01",
            "pkg/.venv/bin/python": "x",
            "pkg/m.py": "ok",
        },
    )
    assert list(collect_files(tmp_path)) == ["pkg/m.py"]


def test_extra_ignore_dirs_and_paths(tmp_path):
    make(tmp_path, {".kilo/state.json": "{}", "keep.txt": "k", "logs/run.log": "l"})
    files = collect_files(tmp_path, ignore_dirs={".kilo"}, ignore_paths={"logs/run.log"})
    assert list(files) == ["keep.txt"]


def test_binary_and_invalid_utf8_files_get_a_placeholder(tmp_path):
    make(tmp_path, {"img.png": b"\x89PNG\x00\x00data", "latin1.txt": "caf\xe9".encode("latin-1")})
    files = collect_files(tmp_path)
    assert files["img.png"] == "<binary file (10 bytes)>"
    assert files["latin1.txt"] == "<binary file (4 bytes)>"


def test_large_files_and_the_total_budget_are_capped(tmp_path):
    make(tmp_path, {"big.txt": "x" * 100, "a.txt": "a" * 10, "b.txt": "b" * 10, "c.txt": "c"})
    limits = WorkspaceLimits(max_file_bytes=50, max_total_bytes=15, max_files=10)
    files = collect_files(tmp_path, limits=limits)
    assert files["big.txt"] == "<omitted: file too large (100 bytes)>"
    assert files["a.txt"] == "a" * 10
    assert files["b.txt"] == "<omitted: workspace size cap reached (10 bytes)>"
    assert files["c.txt"] == "c"
    few = collect_files(tmp_path, limits=WorkspaceLimits(max_files=1))
    assert few["a.txt"] == "a" * 10
    assert few["b.txt"].startswith("<omitted: workspace size cap reached")


def test_symlinks_are_listed_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    work = tmp_path / "work"
    work.mkdir()
    os.symlink(outside / "secret.txt", work / "link.txt")
    os.symlink(outside, work / "linkdir")
    files = collect_files(work)
    assert files == {
        "link.txt": f"<symlink to {outside / 'secret.txt'}>",
        "linkdir": f"<symlink to {outside}>",
    }


def test_empty_workspace(tmp_path):
    assert collect_files(tmp_path) == {}

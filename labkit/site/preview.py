"""Live preview of one language while writing: ``python -m labkit.site.preview [fr|zh] [PORT]``.

It serves the language with ``mkdocs serve`` (live reload on a change to its pages, its MkDocs
configuration, or anything under ``labs/``: a results file, a notebook), and restarts that server
when labkit's own code changes (a figure in labkit/course/figures.py, a quiz key in labkit/course/quizzes.py, a
lab's tables), since a running server keeps the code it started with; the page open in the
browser reconnects and reloads by itself. Ctrl-C (or SIGTERM) stops it.

``mkdocs serve`` builds the site it serves into a temporary folder, which it removes only when it
ends on Ctrl-C; a server stopped otherwise (at a restart, or by SIGTERM) left it behind, several MB
each time. So the servers get a temporary folder of the preview's own (TMPDIR), emptied of their
sites after each one stops and removed when the preview ends.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from labkit.project import find_project
from labkit.site.build import CONFIGS

POLL_SECONDS = 1.0
DEFAULT_PORT = 8000


def code_state(root: Path) -> dict[Path, float]:
    """Modification time of every Python file under ``root``."""
    return {path: path.stat().st_mtime for path in root.rglob("*.py")}


def serve_command(lang: str, port: int) -> list[str]:
    return [sys.executable, "-m", "mkdocs", "serve", "-f", CONFIGS[lang], "--watch", "labs",
            "--livereload", "-a", f"127.0.0.1:{port}"]


def stop(server: subprocess.Popen, scratch: Path) -> None:
    """Stop the server if it still runs, then remove the sites it built in ``scratch``."""
    if server.poll() is None:
        server.terminate()
        server.wait()
    for site in scratch.glob("mkdocs_*"):
        shutil.rmtree(site, ignore_errors=True)


def _exit_on_sigterm(signum, frame):
    raise SystemExit(0)   # through main's finally: the server stopped, its site removed


def main(argv: list[str]) -> int:
    lang = argv[0] if argv else "fr"
    if lang not in CONFIGS:
        print(f"labkit: no language '{lang}': choose one of {', '.join(CONFIGS)}")
        return 1
    port = int(argv[1]) if len(argv) > 1 else DEFAULT_PORT
    project = find_project()
    labkit_code = Path(__file__).resolve().parents[1]
    print(f"Previewing {lang} at http://127.0.0.1:{port}/ : pages, results and labkit's code reload on change "
          "(Ctrl-C stops)", flush=True)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    with tempfile.TemporaryDirectory(prefix="labkit-preview-") as folder:
        scratch = Path(folder)
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "TMPDIR": folder}
        server = None
        try:
            while True:
                server = subprocess.Popen(serve_command(lang, port), cwd=project.root, env=env)
                seen = code_state(labkit_code)
                while server.poll() is None and code_state(labkit_code) == seen:
                    time.sleep(POLL_SECONDS)
                if server.poll() is not None:
                    return server.returncode
                print("labkit's code changed: restarting the preview", flush=True)
                stop(server, scratch)
        except KeyboardInterrupt:
            return 0
        finally:
            if server is not None:
                stop(server, scratch)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

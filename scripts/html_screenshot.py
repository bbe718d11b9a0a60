"""The README's screenshot of the HTML report: ``tracecheck replay sample_traces/`` as a
page in Debian's Chromium (1280×900), its table filtered to the traces where a guard fired.

    python scripts/html_screenshot.py                 # writes docs/html-report.png
    python scripts/html_screenshot.py OUT.png

Needs the dev extra (Playwright) and /usr/bin/chromium (Debian's package ``chromium``);
nothing is downloaded.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from tracecheck.config import load_settings
from tracecheck.commands import ReplayRequest, replay

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "html-report.png"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    target = Path(argv[0]) if argv else TARGET
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as folder:
        page_file = Path(folder) / "report.html"
        with open(page_file, "wb") as out:
            # Relative names, as a user in the repository would see them.
            replay(ReplayRequest(["sample_traces/"], load_settings(), format="html"), out)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_file.as_uri())
            page.select_option("#f-guard", "any")
            page.screenshot(path=str(target))
            browser.close()
    print(f"wrote {target} ({target.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    import os

    names = [str(Path(name).resolve()) for name in sys.argv[1:]]
    os.chdir(ROOT)
    sys.exit(main(names))

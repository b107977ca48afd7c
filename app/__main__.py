"""Entry point so the whole platform is driven by `python -m app`."""

import gc
import sys

# Start-up makes some 200,000 objects that live as long as the process, and the collector walked
# them all again and again while they were being made (about 0.4 s of a `serve`'s 3 s start).
# Collections resume once the command starts, or for `serve` once its app has started
# (app/web/heap.py sets start-up's objects aside, then turns them back on).
gc.disable()

from app.cli import main  # noqa: E402  # after the collector is paused: this import is the start

sys.exit(main())

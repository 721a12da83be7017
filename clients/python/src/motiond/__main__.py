"""``python3 -m motiond monitor …``."""

from .monitor import main

main()

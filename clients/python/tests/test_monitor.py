"""``python3 -m motiond monitor`` as a user runs it, beside motionctl monitor's contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unittest
from typing import List

from support import DaemonTestCase


def monitor(*arguments: str) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, "-m", "motiond", "monitor", *arguments], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "MOTIOND_SOCKET": ""})


class MonitorTests(DaemonTestCase):
    def test_json_lines_exactly_as_sent(self) -> None:
        daemon = self.start_still()
        run = monitor("--socket", daemon.socket, "--duration", "1.5", "--interval", "0.1", "--json",
                      "accelerometer", "orientation")
        self.assertEqual(run.returncode, 0, run.stderr)
        messages: List[dict] = [json.loads(line) for line in run.stdout.splitlines()]
        kinds = {m["type"] for m in messages}
        self.assertEqual(kinds, {"accelerometer", "orientation"}, run.stdout)
        self.assertGreaterEqual(sum(m["type"] == "accelerometer" for m in messages), 5)

    def test_text_lines_for_people(self) -> None:
        daemon = self.start_still()
        run = monitor("--socket", daemon.socket, "--duration", "1.5")
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.splitlines()
        self.assertTrue(any(line.endswith("  orientation faceUp") for line in lines), run.stdout)
        self.assertTrue(any("roll=" in line and "gravity=" in line for line in lines), run.stdout)

    def test_exit_statuses_as_motionctl(self) -> None:
        missing = monitor("--socket", f"{self.directory}/nobody.sock")
        self.assertEqual(missing.returncode, 69, missing.stderr)
        self.assertIn("cannot reach motiond", missing.stderr)
        usage = monitor("--socket", f"{self.directory}/nobody.sock", "bogus")
        self.assertEqual(usage.returncode, 64)
        self.assertIn("unknown stream bogus", usage.stderr)
        daemon = self.start("sim:")
        refused = monitor("--socket", daemon.socket, "--frame", "xTrueNorthZVertical")
        self.assertEqual(refused.returncode, 1)
        self.assertIn("subscribe deviceMotion", refused.stderr)
        self.assertIn("frameUnavailable", refused.stderr)


if __name__ == "__main__":
    unittest.main()

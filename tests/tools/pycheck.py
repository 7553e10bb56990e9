"""Shared by the Python tests of scripts/capture's tools: the checks that
failed, collected and reported, and the exit code that says so."""
import subprocess
import sys


class Checks:
    def __init__(self, name):
        self.name = name
        self.fails = []

    def want(self, cond, what):
        if not cond:
            self.fails.append(what)

    def finish(self, out):
        """Prints each failed check (then OUT, the tool's output) or the
        pass line; returns the test's exit code."""
        for f in self.fails:
            print(f"FAIL: {f}")
        if self.fails:
            print(out)
            return 1
        print(f"{self.name}: all checks passed")
        return 0


def tool(*args):
    """Runs a tool (a Python script and its arguments) with this Python,
    its output captured as text."""
    return subprocess.run([sys.executable, *args], capture_output=True,
                          text=True)

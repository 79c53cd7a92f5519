"""The forests' tests grow and route single trees with the helpers of the trees' tests."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "trees"))  # tree_helpers

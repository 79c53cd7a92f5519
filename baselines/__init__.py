"""Boosting and deep-forest baselines: DeepBoost, AdaBoost, QuadBoost, gcForest."""
from .gcforest import GCForestClassifier  # noqa: E402,F401
from .scanning import MultiGrainedScanner  # noqa: E402,F401

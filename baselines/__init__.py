"""Boosting and deep-forest baselines: DeepBoost, AdaBoost, QuadBoost, gcForest."""

from .gcforest import GCForestClassifier
from .quadboost import QuadBoostClassifier
from .scanning import MultiGrainedScanner

__all__ = ["GCForestClassifier", "MultiGrainedScanner", "QuadBoostClassifier"]

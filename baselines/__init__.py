"""Boosting and deep-forest baselines: DeepBoost, AdaBoost, QuadBoost, gcForest."""

from .adaboost import AdaBoostClassifier
from .deepboost import DeepBoostClassifier
from .gcforest import GCForestClassifier
from .quadboost import QuadBoostClassifier
from .scanning import MultiGrainedScanner

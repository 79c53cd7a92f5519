"""Boosting and deep-forest baselines: DeepBoost, AdaBoost, QuadBoost, gcForest."""

from .adaboost import AdaBoostClassifier
from .deepboost import DeepBoostClassifier
from .quadboost import QuadBoostClassifier

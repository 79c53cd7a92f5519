"""Boosting and deep-forest baselines: DeepBoost, AdaBoost, QuadBoost, gcForest."""

from .quadboost import QuadBoostClassifier

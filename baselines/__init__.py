"""Boosting and deep-forest baselines: DeepBoost, AdaBoost, QuadBoost, gcForest."""

"""Recommender inputs: ranked id lists, ground truth forms, candidate sets."""

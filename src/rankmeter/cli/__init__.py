"""Command-line interface: ``rankmeter evaluate | measures | compare | retrieval | trec_eval``."""

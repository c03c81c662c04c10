"""Command-line interface: ``rankmeter evaluate | measures | compare | retrieval``."""

"""Training the models and building their data (the ``train`` extra: torch, Ultralytics)."""

"""The built-in demo source: a synthetic table that keeps revealing dice or cards."""

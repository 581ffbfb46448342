"""Teaching a table's own set: labels files, fitting a profile, and the folder that keeps its photos."""

"""The table session, the Flask dashboard and the ``tableref`` command line."""

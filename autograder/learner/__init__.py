"""What faces learners: the CLI, the notebook check, reports and hints, pictures, progress."""

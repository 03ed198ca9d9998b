"""What the author of a change sees: annotations, the job summary, the sticky PR comment."""

"""Static checks for silent PyTorch training bugs (pure: source text in, findings out)."""

"""What the layers above the engine may know of a game: its declaration types (policy
parameters and the policy protocol), free of any one game's names."""

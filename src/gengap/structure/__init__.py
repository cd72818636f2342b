"""The structure of examples that splitters use: atoms and compounds, their counts, and divergences."""

"""Figures: the figure types, the campaign figure set and the exploration helpers."""

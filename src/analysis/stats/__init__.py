"""Statistics on the tidy runs table; knows nothing about tools.

See docs/statistics.md for which test is chosen when, and the columns of
every result table.
"""

from analysis.stats.assumptions import group_residuals, levene, qq_data, shapiro, standardised_residuals
from analysis.stats.corrections import adjust
from analysis.stats.factorial import factorial_anova, is_balanced, two_level_effects
from analysis.stats.formatting import (change_from_ratio, format_change, format_difference, format_f,
                                       format_p)
from analysis.stats.from_summaries import (anova_from_stats, directional_p, hedges_g_from_stats,
                                          tost_from_stats, welch_from_stats)
from analysis.stats.many_groups import dunn, games_howell, kruskal_wallis, one_way, tukey_hsd
from analysis.stats.models import blocked_difference, blocked_groups, interaction_test
from analysis.stats.power import (minimum_detectable_difference, n_per_group, power_for_change, power_of_test, power_t,
                                  runs_needed)
from analysis.stats.results import (AssumptionCheck, EquivalenceTest, Interval, OmnibusTest,
                      RankTest, TwoGroupTest)
from analysis.stats.summaries import (cell_summaries, clip_interval, harmonic_mean, mean_ci, mean_intervals, median_ci,
                                      metric_range, summarize)
from analysis.stats.two_groups import (hedges_g, hodges_lehmann, mann_whitney, probability_of_superiority,
                                      ratio_of_means, t_test, tost)

__all__ = [
    "AssumptionCheck", "EquivalenceTest", "Interval", "OmnibusTest", "RankTest",
    "TwoGroupTest", "adjust", "anova_from_stats", "blocked_difference", "blocked_groups", "cell_summaries", "mean_intervals",
    "change_from_ratio", "clip_interval", "directional_p", "dunn", "factorial_anova", "format_change", "format_difference", "format_f", "format_p",
    "games_howell", "group_residuals", "harmonic_mean", "hedges_g",
    "hedges_g_from_stats", "hodges_lehmann", "interaction_test", "is_balanced", "kruskal_wallis", "levene",
    "mann_whitney", "mean_ci", "metric_range", "minimum_detectable_difference", "median_ci", "n_per_group", "one_way",
    "power_for_change", "power_of_test", "probability_of_superiority", "power_t", "qq_data", "ratio_of_means", "runs_needed",
    "shapiro", "standardised_residuals", "summarize", "t_test", "tost", "tost_from_stats", "tukey_hsd", "two_level_effects",
    "welch_from_stats",
]

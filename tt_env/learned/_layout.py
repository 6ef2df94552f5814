"""The names of the feature columns (:class:`~tt_env.learned.features.CardFeatures`' layout),
apart from the transform so that its compiled twin reads the same layout without importing the
transform that calls it."""

from __future__ import annotations

from tt_env.encoding.observation import CARDS_DEALT_SLOTS, MIN_CARDS_DEALT

FEATURE_NAME = "card-features"
FEATURE_VERSION = 1

CARD_FEATURES: tuple[str, ...] = (
    "held",
    "drawn_upcard",
    "top_discard",
    "unseen",
    "discarded",
    "on_table",
    "next_known",
    "others_known",
    "wild",
    "points",
    "after_discard",
    "vs_best_discard",
    "best_discard",
    "goes_out",
    "saving",
    "draw_gain",
    "lookahead_gain",
    "candidate",
    "same_rank_held",
    "run_held_1",
    "run_held_2",
    "same_rank_unseen",
    "run_unseen_1",
    "run_unseen_2",
    "feeds_next",
    "rank",
)
CARD_WIDTH = len(CARD_FEATURES)
_C = {name: i for i, name in enumerate(CARD_FEATURES)}

GLOBAL_FEATURES: tuple[str, ...] = (
    "draw_phase",
    "discard_phase",
    "final_turn",
    "penalty",
    "take_gain",
    "stock_gain",
    "can_take",
    "best_after_discard",
    "can_go_out",
    "cards_dealt",
    *(f"dealt_{n}" for n in range(MIN_CARDS_DEALT, MIN_CARDS_DEALT + CARDS_DEALT_SLOTS)),
    "rounds_left",
    "stock_size",
    "turns_left",
)
SEAT_FEATURES: tuple[str, ...] = ("hand_size", "went_out", "score", "known", "dealer")
_G = {name: i for i, name in enumerate(GLOBAL_FEATURES)}

"""The rule player's belief ratios fitted to games (maw.policies.fitted, maw train --algo
beliefs): the fit finds ratios that made the data, the file plays as ``learned:FILE``."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pytest

from maw.cli import main
from maw.engine import new_game, ruleset
from maw.engine.view import view
from maw.errors import ConfigError, MawError
from maw.policies import make_decider
from maw.policies.beliefs import HAND, Ratios
from maw.policies.fitted import Fitted, fit, fitted_decider, judge
from maw.policies.learned import LearnedDecider
from maw.policies.rule import RuleDecider


def made_by(truth: Ratios, n: int, seed: int):
    """``n`` weighings whose true pack is drawn from the model ``truth``: 20 hypotheses
    of counts drawn at random, the first two of them impossible."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        features = rng.poisson(1.0, size=(20, 9)).astype(float)
        holds = np.ones(20, dtype=bool)
        holds[:2] = False
        score = np.where(holds, features @ truth.vector(), -np.inf)
        p = np.exp(score - score.max())
        out.append((features, holds, int(rng.choice(20, p=p / p.sum()))))
    return out


def test_the_fit_finds_the_ratios_that_made_the_evidence():
    truth = Ratios.of([1.5, 3.0, -2.5, -0.5, 1.5, -1.0, 0.5, 2.0, -0.5])
    records = made_by(truth, 3000, seed=1)
    fitted = fit(records, steps=400, batch=1000)
    assert np.abs(fitted.vector() - truth.vector()).max() < 0.25
    assert np.abs(HAND.vector() - truth.vector()).max() > 1.0  # (it moved there)
    held_out = made_by(truth, 1000, seed=2)
    hand_ll, hand_p, _ = judge(held_out, HAND)
    fit_ll, fit_p, _ = judge(held_out, fitted)
    true_ll, _, _ = judge(held_out, truth)
    assert hand_ll < fit_ll and fit_p > hand_p
    assert fit_ll == pytest.approx(true_ll, abs=0.02)
    with pytest.raises(MawError, match="no evidence"):
        fit([])


def test_maw_train_fits_rule_games_and_the_file_plays_as_a_learned_player(tmp_path, capsys):
    out = tmp_path / "aiwolf5-village.beliefs.json"
    assert main(["train", "--algo", "beliefs", "--ruleset", "aiwolf-5", "--team", "village",
                 "--games", "60", "--seed", "3", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"maw train: {out}:" in said and "fitted; play it with --policy learned:" in said
    data = json.loads(out.read_text())
    assert data["format"] == "maw-beliefs-1" and data["ruleset"] == "aiwolf-5"
    assert data["players"] == 5 and data["games"] == 60 and data["records"] > 0
    assert data["held_out"]["records"] > 0
    assert data["poison_at"] is None and data["poison_search"] == {}  # (no Witch)
    assert set(data["ratios"]) == set(HAND.__dataclass_fields__)
    assert data["ratios"] != {k: getattr(HAND, k) for k in data["ratios"]}
    # as learned:FILE: the rule player, its beliefs weighed by the file's ratios
    decider = make_decider(f"learned:{out}", "P01", random.Random(1))
    assert type(decider) is RuleDecider
    assert decider.ratios == Fitted.read(out, data).ratios != HAND
    # a vote among the others weighs differently by the two sets of ratios
    names = ["P01", "P02", "P03", "P04", "P05"]
    state = new_game(ruleset("aiwolf-5"), names, random.Random(4))
    me = next(n for n, r in zip(state.names, state.roles, strict=True) if not r.pack)
    others = [n for n in names if n != me]
    seen = dataclasses.replace(view(state, me), day=2, vote_history=[(1, "execute", 0, (
        (others[0], others[1]), (others[2], others[1]), (others[1], others[3])))])
    fitted = make_decider(f"learned:{out}", me, random.Random(1))
    hand = make_decider("rule", me, random.Random(1))
    assert fitted.beliefs(seen) != pytest.approx(hand.beliefs(seen))
    assert sum(fitted.beliefs(seen).values()) == pytest.approx(1.0)  # (one wolf)


def test_a_table_is_still_a_table_and_a_broken_beliefs_file_says_where_and_why(tmp_path):
    from maw.policies.learned import Table

    table = tmp_path / "t.json"
    Table("aiwolf-5", "village").save(table)
    assert isinstance(make_decider(f"learned:{table}", "P01", random.Random(1)),
                      LearnedDecider)
    whole = {"format": "maw-beliefs-1", "ruleset": "aiwolf-5", "players": 5, "games": 10,
             "records": 9, "seconds": 1.0,
             "ratios": {k: getattr(HAND, k) for k in HAND.__dataclass_fields__}}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(whole))
    assert make_decider(f"learned:{good}", "P01", random.Random(1)).ratios == HAND
    for name, ratios, says in [
            ("part.json", {"pack_together": 1.0}, "must name exactly"),
            ("text.json", {**whole["ratios"], "pack_together": "high"}, "finite number"),
            ("nan.json", {**whole["ratios"], "pack_together": float("nan")}, "finite number")]:
        broken = tmp_path / name
        broken.write_text(json.dumps({**whole, "ratios": ratios}))
        with pytest.raises(ConfigError, match=f"{broken}: a fitted beliefs file.*{says}"):
            make_decider(f"learned:{broken}", "P01", random.Random(1))
    binary = tmp_path / "model.zip"
    binary.write_bytes(b"PK\x03\x04\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not a learned policy"):
        make_decider(f"learned:{binary}", "P01", random.Random(1))


@pytest.mark.parametrize(("extra", "says"), [
    (["--team", "werewolves"], "--team village"),
    (["--team", "village", "--opponents", "random"], "no --opponents"),
    (["--team", "village", "--games", "3"], "at least 5"),
    (["--team", "village", "--out", "/nonexistent/x.json"], "no folder"),
])
def test_maw_train_beliefs_refuses_what_it_cannot_fit_in_one_line(tmp_path, capsys, extra,
                                                                   says):
    code = main(["train", "--algo", "beliefs", "--ruleset", "aiwolf-5", "--games", "40",
                 "--out", str(tmp_path / "x.json"), *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and says in err[0], err
    assert not (tmp_path / "x.json").exists()


def test_the_witch_poisons_at_the_threshold_the_file_gives_and_only_a_witch_is_searched():
    """A fitted file's ``poison_at`` is the Witch's threshold in play; the trainer tries
    each of ``POISON_AT`` on the same games where the ruleset deals a Witch, and none
    where it does not."""
    from maw.env.fit_beliefs import POISON_AT, choose_poison
    from maw.policies.rule import Poison

    def witch(poison_at):
        fitted = Fitted("werewolf-12", 12, HAND, poison_at=poison_at)
        decider = fitted_decider("P01", random.Random(1), fitted)
        decider._unweighed, decider._beliefs = None, {"P02": 0.95, "P03": 0.5}
        offered = {Poison: [Poison("P01", "P02"), Poison("P01", "P03")]}
        return decider._potion(None, offered)

    assert witch(None) == Poison("P01", "P02")  # (the rule player's 0.9)
    assert witch(0.9) == Poison("P01", "P02")
    assert witch(0.99) is None and witch(1.01) is None
    fitted = Fitted("werewolf-12", 12, HAND)
    choose_poison(ruleset("werewolf-12"), 12, fitted, range(3))
    assert set(fitted.poison_search) == {str(at) for at in POISON_AT}
    assert all(0 <= wins <= 3 for wins in fitted.poison_search.values())
    assert fitted.poison_search[str(fitted.poison_at)] == max(fitted.poison_search.values())
    plain = Fitted("aiwolf-5", 5, HAND)
    choose_poison(ruleset("aiwolf-5"), 5, plain, range(3))
    assert plain.poison_at is None and plain.poison_search == {}
    # read back, and checked
    path_data = {"format": "maw-beliefs-1", "ruleset": "werewolf-12", "players": 12,
                 "games": 1, "records": 1, "seconds": 0.0, "poison_at": "never",
                 "ratios": {k: getattr(HAND, k) for k in HAND.__dataclass_fields__}}
    with pytest.raises(ConfigError, match="'poison_at' must be a number above 0"):
        Fitted.read(Path("x.json"), path_data)
    assert Fitted.read(Path("x.json"), {**path_data, "poison_at": 0.99}).poison_at == 0.99

"""Input errors cross process boundaries whole: ``rove check`` runs deals in worker
processes (a local pool or Dask), and a bad spec found there must reach the user as the
same ``path:line: message`` lines, not as the message's characters one per line."""

from __future__ import annotations

import pickle

from rove.errors import InputError, Problem


def test_an_input_error_pickles_with_its_problems() -> None:
    err = InputError([Problem("deck.yaml", 12, "bonus 0 is not above the base points 0; raise the bonus"),
                      Problem("deck.yaml", None, "no missions")])
    back = pickle.loads(pickle.dumps(err))
    assert isinstance(back, InputError)
    assert back.problems == err.problems
    assert str(back) == str(err) == ("deck.yaml:12: bonus 0 is not above the base points 0; raise the bonus\n"
                                     "deck.yaml: no missions")

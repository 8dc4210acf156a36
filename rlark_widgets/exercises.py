"""Predict, then run: the check behind the teaching notebooks' exercises.

A notebook computes the answer with the library and passes the learner's prediction (``None``
until they write one). The verdict is printed in both languages, so the English and Chinese
notebooks show the same output.
"""

from __future__ import annotations

from .i18n import LANGUAGES, Text


def check_prediction(prediction: object, answer: object) -> str:
    """Say whether ``prediction`` equals the computed ``answer``, and show the answer."""
    if prediction is None:
        verdict = Text(
            "No prediction yet. The answer is {answer}; write yours in the cell above first "
            "next time, then run both cells.",
            answer=repr(answer),
        )
    elif prediction == answer:
        verdict = Text("Right: {answer}.", answer=repr(answer))
    else:
        verdict = Text(
            "Not quite: you predicted {prediction}, the answer is {answer}.",
            prediction=repr(prediction),
            answer=repr(answer),
        )
    return "\n".join(verdict.render(lang) for lang in LANGUAGES)

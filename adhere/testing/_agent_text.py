"""What the agent policies say: final answers in English, and in another language on purpose.

The ``wrong-language`` violation answers in French, or in German when the user's
request itself looks French, so the answer is never in the user's language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["EMOJI", "answer_text", "looks_french", "missing_text"]

EMOJI = " 🎉✅"

_TEMPLATES: Mapping[str, Mapping[str, str]] = {
    "en": {
        "read": "The first line of {path} is: {line}",
        "read-empty": "I read {path}, but it shows no text.",
        "edit": "I edited {path} and added a line.",
        "run": "I ran `{command}`. The output starts with: {line}",
        "run-empty": "I ran `{command}`; it printed nothing.",
        "skill": "I used the {skill} skill.",
        "answer": "Understood. There is nothing to change for this request.",
        "forbidden": "I also reset the repository with `git reset --hard`.",
    },
    "fr": {
        "read": "La première ligne de {path} est : {line}",
        "read-empty": "J'ai lu {path}, mais il ne contient aucun texte.",
        "edit": "J'ai modifié {path} et ajouté une ligne.",
        "run": "J'ai exécuté `{command}`. La sortie commence par : {line}",
        "run-empty": "J'ai exécuté `{command}` ; la commande n'a rien affiché.",
        "skill": "J'ai utilisé la compétence {skill}.",
        "answer": "Compris. Il n'y a rien à changer pour cette demande.",
        "forbidden": "J'ai aussi réinitialisé le dépôt avec `git reset --hard`.",
    },
    "de": {
        "read": "Die erste Zeile von {path} lautet: {line}",
        "read-empty": "Ich habe {path} gelesen, aber die Datei zeigt keinen Text.",
        "edit": "Ich habe {path} bearbeitet und eine Zeile hinzugefügt.",
        "run": "Ich habe `{command}` ausgeführt. Die Ausgabe beginnt mit: {line}",
        "run-empty": "Ich habe `{command}` ausgeführt; es wurde nichts ausgegeben.",
        "skill": "Ich habe die Fähigkeit {skill} verwendet.",
        "answer": "Verstanden. Für diese Anfrage gibt es nichts zu ändern.",
        "forbidden": "Außerdem habe ich das Repository mit `git reset --hard` zurückgesetzt.",
    },
}
_FRENCH_WORDS = frozenset(
    "le la les des est une et pour dans avec que qui pas vous je tu moi fichier lis lire "
    "première ligne merci bonjour sur du au aux ce cette peux".split()
)
_WORD = re.compile(r"[a-zàâçéèêëîïôûùüÿœ']+")


def looks_french(text: str) -> bool:
    """Whether ``text`` reads as French (a few common French words in it)."""
    found = {word for word in _WORD.findall(text.lower()) if word in _FRENCH_WORDS}
    return len(found) >= 3


def answer_text(kind: str, language: str, *, forbidden: bool = False, **fields: str) -> str:
    """The final answer of kind ``read``, ``edit``, ``run``, ``skill`` or ``answer``.

    Args:
        kind: Which answer (``read-empty`` / ``run-empty`` when there is no line).
        language: ``en``, ``fr`` or ``de``.
        forbidden: Add the sentence owning up to ``git reset --hard``.
        **fields: ``path``, ``line``, ``command``, ``skill`` as the template needs.
    """
    templates = _TEMPLATES[language]
    text = templates[kind].format(**fields)
    return f"{text} {templates['forbidden']}" if forbidden else text


def missing_text(role: str, what: str) -> str:
    """The answer when no offered tool plays ``role`` (always in English)."""
    return f"I could not {what}: no tool for the '{role}' role was offered."

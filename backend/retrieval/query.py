"""What one search looks for, as a typed value that travels from the question to the evidence."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    """The words a search is for, the earlier words they lean on and what the reader pasted.

    `context` is the question a follow-up refers back to ("What is its range?" leans on "What is
    a ToF camera?"), the first part that a later part's "it" means. `pasted` is what the reader
    pasted with the question: code, error output, a log or a configuration. All three find
    passages; the words of `text`, the reader's own, choose the sentences that answer, and only
    `text` and `context` say what is asked about (a name in a pasted traceback is not). A
    reader's own parentheses ("… (in kHz)?") are part of `text`."""

    text: str
    context: tuple[str, ...] = ()
    pasted: tuple[str, ...] = ()

    def leaning_on(self, *context: str) -> "Query":
        return Query(self.text, (*self.context, *(c for c in context if c)), self.pasted)

    @property
    def asked(self) -> str:
        """What is asked: the words, then each context in parentheses."""
        return self.text + "".join(f" ({c})" for c in self.context)

    @property
    def whole(self) -> str:
        """What retrieval embeds and matches: what is asked, then what was pasted."""
        return "\n".join((self.asked, *self.pasted))

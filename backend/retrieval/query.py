"""What one search looks for, as a typed value that travels from the question to the evidence."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Query:
    """The words a search is for and the earlier words they lean on: the question a follow-up
    refers back to ("What is its range?" leans on "What is a ToF camera?"), the first part that a
    later part's "it" means. Both find passages; the words of `text`, the reader's own, choose
    the sentences that answer. A reader's own parentheses ("… (in kHz)?") are part of `text`."""

    text: str
    context: tuple[str, ...] = ()

    def leaning_on(self, *context: str) -> "Query":
        return Query(self.text, (*self.context, *(c for c in context if c)))

    @property
    def whole(self) -> str:
        """What retrieval embeds and matches: the words, then each context in parentheses."""
        return self.text + "".join(f" ({c})" for c in self.context)

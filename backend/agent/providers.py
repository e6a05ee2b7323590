"""Answer models by configuration: `offline` (default), `gemini`, `openai`, or any
OpenAI-compatible server (vLLM, llama.cpp, Ollama) through `openai-compatible`."""

from agents import Model, OpenAIChatCompletionsModel
from openai import AsyncOpenAI

from backend.agent.errors import ConfigError
from backend.agent.offline_model import MODEL_NAME as OFFLINE_MODEL_NAME
from backend.agent.offline_model import OfflineAnswerModel
from backend.config import Settings
from backend.question import Question

GEMINI_OPENAI_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"
DEFAULT_MODEL_NAMES = {"gemini": "gemini-2.5-flash", "openai": "gpt-4.1-mini"}


class ModelFactory:
    """Creates the model for one question; the HTTP client is shared by all of them."""

    def __init__(self, settings: Settings):
        self.kind = settings.model
        self._client: AsyncOpenAI | None = None
        self.writes_as_it_goes = self.kind != "offline"  # an LLM's words stream as it writes them
        if self.kind == "offline":
            self.name = OFFLINE_MODEL_NAME
            return
        # Keep "gemini" in Gemini model names: the SDK uses it to round-trip thought signatures.
        self.name = settings.model_name or DEFAULT_MODEL_NAMES.get(self.kind, "")
        if not self.name:
            raise ConfigError("LECTERN_MODEL=openai-compatible needs LECTERN_MODEL_NAME")
        base_url, key = self._endpoint(settings)
        self._client = AsyncOpenAI(
            base_url=base_url, api_key=key, timeout=settings.llm_timeout_s, max_retries=1
        )

    def _endpoint(self, settings: Settings) -> tuple[str | None, str]:
        if self.kind == "gemini":
            if not settings.gemini_api_key:
                raise ConfigError("LECTERN_MODEL=gemini needs GEMINI_API_KEY")
            url = settings.llm_base_url or GEMINI_OPENAI_URL
            return url, settings.gemini_api_key.get_secret_value()
        if self.kind == "openai":
            if not settings.openai_api_key:
                raise ConfigError("LECTERN_MODEL=openai needs OPENAI_API_KEY")
            return settings.llm_base_url, settings.openai_api_key.get_secret_value()
        if not settings.llm_base_url:
            raise ConfigError("LECTERN_MODEL=openai-compatible needs LECTERN_LLM_BASE_URL")
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "none"
        return settings.llm_base_url, key

    def for_question(self, question: Question) -> Model:
        if self._client is None:
            return OfflineAnswerModel(question)
        return OpenAIChatCompletionsModel(model=self.name, openai_client=self._client)

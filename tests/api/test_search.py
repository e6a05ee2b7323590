"""POST /api/search: ranked passages with highlights, no answer; the same access rules as chat."""

from pathlib import Path

from fastapi.testclient import TestClient

from tests.support.books import app_client


def test_search_ranks_passages_and_highlights_the_query_words(real_book: Path) -> None:
    with app_client(real_book, book="physical-ai") as client:
        response = client.post("/api/search", json={"query": "Kalman filter predict update", "limit": 5})
        assert response.status_code == 200
        body = response.json()
        assert body["query"] == "Kalman filter predict update" and len(body["results"]) == 5
        top = body["results"][0]
        assert set(top) == {"module", "lesson", "section", "url", "page", "excerpt", "highlights", "score"}
        assert "Sensor Fusion" in top["lesson"] and "#" in top["url"] and top["page"] is None
        marked = [top["excerpt"][start:end].lower() for start, end in top["highlights"]]
        assert "kalman" in marked and all(word.startswith(("kalman", "filter", "predict", "updat")) for word in marked)
        scores = [result["score"] for result in body["results"]]
        assert scores == sorted(scores, reverse=True)
        assert "search_book_content" not in response.text  # no model, no tools: passages only


def test_search_refuses_bad_input_with_a_message(motors: TestClient) -> None:
    for body, message in [({"query": ""}, "at least 1 character"), ({"query": "<b></b>"}, "no text"),
                          ({"query": "servo", "limit": 50}, "limit"), ({"query": "a\u0000"}, "NUL")]:
        response = motors.post("/api/search", json=body)
        assert response.status_code == 400 and message in response.json()["detail"], body
    unknown = motors.post("/api/search", json={"query": "servo", "book": "nobook"})
    assert unknown.status_code == 404


def test_nonsense_matches_nothing_and_real_searches_still_do(real_book: Path) -> None:
    """Nothing near (by the book's calibration) and no passage holding the words: no results;
    a name the embedding model knows little of ("tf2", nearer to nothing than everyday
    questions are) is still found by its words."""
    with app_client(real_book, book="physical-ai") as client:
        for nonsense in ["xylophone kubernetes", "banana bread recipe", "How long should I boil an egg?"]:
            response = client.post("/api/search", json={"query": nonsense})
            assert response.status_code == 200 and response.json()["results"] == [], nonsense
        for real, lesson in [("How fast does a 2D LiDAR scan?", "Depth Sensing"), ("sensor fusion", "Sensor Fusion"),
                             ("tf2", ""), ("cuVSLAM", ""), ("URDF", "")]:
            results = client.post("/api/search", json={"query": real}).json()["results"]
            assert len(results) >= 3 and lesson in results[0]["lesson"], real

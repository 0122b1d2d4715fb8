from adhere.models._session import env_proxy, new_session, tls_context


def test_one_tls_context_for_every_client():
    assert tls_context() is tls_context()


def test_proxies_come_from_the_environment(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    assert env_proxy("https://api.example.com/v1/chat/completions") == (None, None)
    monkeypatch.setenv("HTTPS_PROXY", "http://user:pw@proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    proxy, headers = env_proxy("https://api.example.com/v1/chat/completions")
    assert str(proxy) == "http://proxy.internal:3128"
    assert headers == {"Proxy-Authorization": "Basic dXNlcjpwdw=="}  # user:pw
    assert env_proxy("http://127.0.0.1:8080/v1/messages") == (None, None)


async def test_sessions_pool_at_least_100_connections():
    for concurrency, pool in ((8, 100), (256, 256)):
        session = new_session(concurrency)
        try:
            assert session.connector is not None
            assert session.connector.limit == pool
        finally:
            await session.close()

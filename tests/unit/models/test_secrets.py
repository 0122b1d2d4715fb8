import pytest

from adhere.errors import SecretError
from adhere.models import resolve_api_key
from adhere.spec._endpoint import SecretSource


def test_no_source_means_no_key():
    assert resolve_api_key(None) is None


def test_env_var():
    source = SecretSource(env="MY_KEY")
    assert resolve_api_key(source, {"MY_KEY": " sk-123\n"}) == "sk-123"
    with pytest.raises(SecretError, match="MY_KEY is not set"):
        resolve_api_key(source, {})
    with pytest.raises(SecretError, match="MY_KEY is empty") as caught:
        resolve_api_key(source, {"MY_KEY": "  "})
    assert "sk-" not in str(caught.value)


def test_file(tmp_path):
    path = tmp_path / "key"
    path.write_text("sk-file\n")
    assert resolve_api_key(SecretSource(file=str(path))) == "sk-file"
    path.write_text("\n")
    with pytest.raises(SecretError, match="is empty"):
        resolve_api_key(SecretSource(file=str(path)))
    with pytest.raises(SecretError, match="does not exist"):
        resolve_api_key(SecretSource(file=str(tmp_path / "missing")))

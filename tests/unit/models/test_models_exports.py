import adhere.models
import adhere.testing


def test_client_package_exports():
    assert adhere.models.__all__ == [
        "PROBE_TIMEOUT_SECONDS",
        "AnthropicClient",
        "CallRecord",
        "ChatRequest",
        "ChatResponse",
        "EndpointLimiter",
        "LimiterRegistry",
        "ModelClient",
        "ModelServer",
        "ModelServerSettings",
        "OpenAIClient",
        "PodPlan",
        "Probe",
        "ProbeFailure",
        "Provider",
        "ProviderService",
        "RateLimiter",
        "ServeContext",
        "Served",
        "backoff_delay",
        "check_endpoint",
        "judge_probe",
        "model_probe",
        "open_client",
        "parse_retry_after",
        "provider",
        "provider_for",
        "provider_names",
        "resolve_api_key",
        "run_probes",
        "serve_providers",
        "shared_limiter",
    ]


def test_policy_package_exports():
    assert adhere.testing.__all__ == [
        "AnswerKey",
        "Conversation",
        "DictReplaySource",
        "Faults",
        "InstanceAnswerKey",
        "ModelString",
        "ModelStringError",
        "Policy",
        "PolicyContext",
        "PolicyFactory",
        "PolicyNotFound",
        "PolicyOptions",
        "PolicyRegistry",
        "PolicyServer",
        "PolicyServerConfig",
        "RecordedRun",
        "RecordedRuns",
        "ReplaySource",
        "Reply",
        "ScriptStep",
        "ScriptedCall",
        "ThreadedPolicyServer",
        "WrongFn",
        "create_app",
        "default_registry",
        "load_scripts",
        "parse_model_string",
        "parse_script",
        "serve",
        "unit_hash",
    ]


def test_every_export_resolves():
    for package in (adhere.models, adhere.testing):
        for name in package.__all__:
            assert getattr(package, name) is not None


def test_policy_package_says_it_is_a_test_double():
    assert "TEST DOUBLE" in (adhere.testing.__doc__ or "")
    assert "test double" in (adhere.testing.PolicyServer.__doc__ or "")

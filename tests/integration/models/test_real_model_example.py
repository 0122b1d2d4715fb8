"""examples/real-model: small, capped, and served by the local model server.

The example itself runs end to end in about a minute and a half on 2 busy cores
(docs/real-model.md); here only its shape is checked, quickly, without the model.
"""

from adhere.models import provider_for
from adhere.models._local_model import LocalModelProvider
from adhere.runner import apply_filters, plan_rollout, suite_lookup
from adhere.spec import load_run_config
from tests.helpers import ROOT

EXAMPLE = ROOT / "examples" / "real-model"


def test_the_example_is_a_small_capped_chat_run_on_the_local_model() -> None:
    config = load_run_config([EXAMPLE / "rollout.yaml"])
    models = config.rollout.spec.models
    assert models and all(isinstance(provider_for(m.endpoint), LocalModelProvider) for m in models)
    assert all(m.endpoint.max_tokens <= 128 for m in models)
    suite = suite_lookup(config)
    instances = suite.load(config.benchmark.spec, base_dir=config.base_dir, file="benchmark.yaml")
    instances = apply_filters(instances, config.benchmark.spec.filters, file="benchmark.yaml")
    assert sorted(i.metadata["language"] for i in instances) == ["cpp", "java", "python"]
    plan, scaffolds = plan_rollout(config, instances)
    assert set(scaffolds) == {"chat"}
    assert len(plan.trials) == 3
    assert config.rollout.spec.storage == "file://../../runs"  # runs/real-model/ (ignored by git)

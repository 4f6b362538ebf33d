"""The base model every shared model derives from: camelCase on the wire, snake_case in Python."""

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class CamelModel(BaseModel):
    """Serialises with the seeds' camelCase names and accepts either spelling on input."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class RequestModel(CamelModel):
    """What a client sends: a field the model does not know is an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid")

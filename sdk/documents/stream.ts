// The lines of `--output jsonl`: one StreamEvent per recorded event, as it is recorded, before the final document.
import { z } from 'zod';

export const StreamEvent = z.looseObject({});

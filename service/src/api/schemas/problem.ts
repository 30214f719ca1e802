import { Type } from 'typebox'
import { ERRORS } from '../../lib/errors.ts'

/** RFC 9457 problem details, as every error of the API is sent (DESIGN §4). */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI naming the problem type: urn:wds:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.Union(
      Object.keys(ERRORS).map((code) => Type.Literal(code)),
      { description: 'Stable machine-readable code; see docs/errors.md' },
    ),
    param: Type.Optional(Type.String({ description: 'The request parameter that was wrong' })),
    requestId: Type.String(),
  },
  { $id: 'Problem', title: 'Problem' },
)

/** The error responses every keyed route documents. */
export const PROBLEM_RESPONSES = {
  '4XX': {
    description: 'Client error: bad input, missing or invalid key, rate limit',
    content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
  },
  '5XX': {
    description: 'Server or upstream error; quote the requestId when reporting it',
    content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
  },
}

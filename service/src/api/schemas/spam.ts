import { Type } from 'typebox'
import { SPAM_REASONS } from '../../domain/spam/reasons.ts'
import { StringEnum } from './nullable.ts'

/** A record's spam verdict (docs/spam.md): the reasons that fired, and whether an account's override decided. */
export const SpamSchema = Type.Object(
  {
    flagged: Type.Boolean({ description: 'Whether the record is spam: its token, or the record itself (address poisoning)' }),
    reasons: Type.Array(
      StringEnum(SPAM_REASONS, {
        description: 'A reason that fired, each defined in docs/spam.md; clients must accept reasons added later',
      }),
      { description: 'The computed reasons, in this order; kept as evidence when an override decides' },
    ),
    source: StringEnum(['computed', 'account'], {
      description: '`computed` from indexed data, or `account`: the asking account marked the token spam or not spam',
    }),
  },
  { $id: 'Spam', title: 'Spam' },
)

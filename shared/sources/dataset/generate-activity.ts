/**
 * Posts, comments and reactions of one batch of people (the sample is one batch): its people
 * comment on and react to the batch's own posts, so a batch is complete on its own and can be
 * written and dropped. Every comment follows its post and every reaction its target, so
 * streams read in a believable order. Planted here: the fixture post (comments and reactions of
 * every type) and the rich profile's reactions, laid out so one raw window of ten holds only
 * reactions to comments — the adapter drops those, which yields an empty page while more exist.
 */
import { type ReactionType, reactionTypes } from '../../../schemas/parameters.js';
import {
  ALPHANUMERIC,
  activityId,
  asciiSlug,
  DAY,
  fill,
  type GenerationContext,
  HOUR,
  iso,
  locationById,
  MINUTE,
  NOW,
  nextInternalId,
  reserve,
} from './context.js';
import { datasetFixtures as fx } from './fixtures.js';
import type { CompanyPlan } from './generate-companies.js';
import type { PersonPlan } from './generate-people.js';
import type { CommentRecord, PostRecord, ReactionRecord } from './model.js';
import { newestFirst } from './newest-first.js';
import {
  COMMENT_TEMPLATES,
  COMPANY_POST_TEMPLATES,
  FUNCTIONS,
  HASHTAGS,
  PERSON_POST_TEMPLATES,
} from './vocabulary.js';

const FIXTURE_POST_TEXT =
  'What we learned scaling our data platform this year: start small, measure everything, and write things down.\n\n#leadership #datascience';
const FIXTURE_POST_COMMENTS = 12;
const FIXTURE_POST_REACTIONS = 24;
/** The rich profile's raw reactions stream, newest first; these positions react to comments. */
const RICH_REACTIONS = 60;
const RICH_COMMENT_REACTION_SLOTS = new Set([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 23, 24, 37, 45, 52]);
const REACTION_WEIGHTS = [60, 12, 10, 8, 6, 4];

export interface Activity {
  posts: PostRecord[];
  comments: CommentRecord[];
  reactions: ReactionRecord[];
}

interface Author {
  name: string;
  /** The slug's leading part: a username or company slug. */
  handle: string;
  username: string | null;
  companySlug: string | null;
}

const time = (isoTime: string) => Date.parse(isoTime);

/** Draws 0-3 hashtags and appends them to the text, as posts on the network carry them. */
function withHashtags(ctx: GenerationContext, text: string): { text: string; hashtags: string[] } {
  const hashtags = ctx.rng.sample(HASHTAGS, ctx.rng.weighted([0, 1, 2, 3], [30, 30, 25, 15]));
  return {
    text: hashtags.length ? `${text}\n\n${hashtags.map((tag) => `#${tag}`).join(' ')}` : text,
    hashtags,
  };
}

/**
 * `<handle>_<first words>-activity-<19 digits>-<4 chars>`: unique because its activity id is, so
 * slugs need no register of their own (the planted post's activity id is reserved).
 */
function postSlug(ctx: GenerationContext, handle: string, text: string): string {
  const words = asciiSlug(text).split('-').slice(0, ctx.rng.int(3, 5)).join('-');
  return `${asciiSlug(handle)}_${words}-activity-${activityId(ctx)}-${ctx.rng.chars(ALPHANUMERIC, 4)}`;
}

function makePost(
  ctx: GenerationContext,
  author: Author,
  slug: string,
  body: { text: string; hashtags: string[] },
  postedAt: number,
): PostRecord {
  return {
    internalId: nextInternalId(ctx, 'post'),
    slug,
    url: `https://www.linkedin.com/posts/${slug}/`,
    authorName: author.name,
    authorUsername: author.username,
    authorCompanySlug: author.companySlug,
    text: body.text,
    postedAt: new Date(postedAt).toISOString(),
    hashtags: body.hashtags,
    reactionCount: 0,
    commentCount: 0,
  };
}

const somewhenThisYear = (ctx: GenerationContext) => NOW - 3 * DAY - ctx.rng.int(0, 400 * 24 * 60) * MINUTE;

function personPostText(ctx: GenerationContext, plan: PersonPlan): string {
  const { rng } = ctx;
  const person = plan.record;
  const current = person.positions.find((position) => position.isCurrent);
  const jobFunction = FUNCTIONS[plan.spec.jobFunction];
  return fill(rng.pick(PERSON_POST_TEMPLATES), {
    title: current?.title ?? rng.pick(jobFunction.titles),
    company: current?.companyName ?? 'my last company',
    city: person.location?.split(',')[0] ?? 'London',
    skill: rng.pick(person.skills.map((skill) => skill.name).concat(jobFunction.skills)),
    product: 'our new platform',
    certification: rng.pick(jobFunction.certifications).name,
  });
}

function companyPostText(ctx: GenerationContext, plan: CompanyPlan): string {
  const { rng } = ctx;
  const company = plan.record;
  const place = locationById(ctx, rng.pick(company.locationIds));
  return fill(rng.pick(COMPANY_POST_TEMPLATES), {
    company: company.name,
    city: place.city,
    country: place.country,
    product: company.products[0]?.name ?? `${company.name} Cloud`,
    age: String(Math.max(1, 2026 - (company.foundedYear ?? 2016))),
    specialty: rng.pick(company.specialties),
  });
}

const personAuthor = (plan: PersonPlan): Author => ({
  name: plan.record.fullName,
  handle: plan.record.username,
  username: plan.record.username,
  companySlug: null,
});

function buildPosts(
  ctx: GenerationContext,
  people: readonly PersonPlan[],
  companies: readonly CompanyPlan[],
): PostRecord[] {
  const posts: PostRecord[] = [];
  const add = (author: Author, body: { text: string; hashtags: string[] }, postedAt: number, slug?: string) =>
    posts.push(makePost(ctx, author, slug ?? postSlug(ctx, author.handle, body.text), body, postedAt));
  for (const plan of people) {
    const author = personAuthor(plan);
    const planted = plan.record.username === fx.post.authorUsername;
    if (planted) add(author, plantedPostBody(ctx), NOW - 3 * DAY, fx.post.slug);
    for (let i = planted ? 1 : 0; i < plan.postCount; i++) {
      add(author, withHashtags(ctx, personPostText(ctx, plan)), somewhenThisYear(ctx));
    }
  }
  for (const plan of companies) {
    const author = {
      name: plan.record.name,
      handle: plan.record.slug,
      username: null,
      companySlug: plan.record.slug,
    };
    for (let i = 0; i < plan.postCount; i++)
      add(author, withHashtags(ctx, companyPostText(ctx, plan)), somewhenThisYear(ctx));
  }
  return posts;
}

function plantedPostBody(ctx: GenerationContext) {
  reserve(ctx, 'activity', /-activity-(\d{19})-/.exec(fx.post.slug)?.[1] ?? '');
  return { text: FIXTURE_POST_TEXT, hashtags: ['leadership', 'datascience'] };
}

const currentCompanyName = (plan: PersonPlan) =>
  plan.record.positions.find((position) => position.isCurrent)?.companyName;

function makeComment(ctx: GenerationContext, plan: PersonPlan, post: PostRecord): CommentRecord {
  return {
    internalId: nextInternalId(ctx, 'comment'),
    commentId: activityId(ctx),
    postSlug: post.slug,
    postUrl: post.url,
    authorName: plan.record.fullName,
    authorUsername: plan.record.username,
    text: fill(ctx.rng.pick(COMMENT_TEMPLATES), {
      first: post.authorName.split(' ')[0] ?? post.authorName,
      company: currentCompanyName(plan) ?? 'my company',
    }),
    commentedAt: iso(time(post.postedAt) + ctx.rng.int(30, 48 * 60) * MINUTE),
  };
}

/** People who may engage with a post: anyone with activity, never its author. */
const audienceOf = (people: readonly PersonPlan[], author: string | null) =>
  people.filter((plan) => plan.spec.profile !== 'bare' && plan.record.username !== author);

function buildComments(
  ctx: GenerationContext,
  people: readonly PersonPlan[],
  posts: readonly PostRecord[],
): CommentRecord[] {
  const comments: CommentRecord[] = [];
  const fixturePost = posts.find((post) => post.slug === fx.post.slug);
  if (fixturePost) {
    for (const plan of ctx.rng.sample(
      audienceOf(people, fixturePost.authorUsername),
      FIXTURE_POST_COMMENTS,
    )) {
      comments.push(makeComment(ctx, plan, fixturePost));
    }
  }
  for (const plan of people) {
    if (plan.commentCount === 0) continue;
    const others = posts.filter((post) => post.authorUsername !== plan.record.username);
    for (const post of ctx.rng.sample(others, plan.commentCount)) comments.push(makeComment(ctx, plan, post));
  }
  return comments;
}

interface Target {
  post: PostRecord;
  comment: CommentRecord | null;
}

const targetTime = (target: Target) => time(target.comment?.commentedAt ?? target.post.postedAt);
const targetKey = (username: string, target: Target) =>
  `${username}|${target.post.slug}|${target.comment?.commentId ?? ''}`;

/** Reactions, each person reacting at most once to a target. */
class ReactionLog {
  readonly reactions: ReactionRecord[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly ctx: GenerationContext,
    private readonly postsBySlug: ReadonlyMap<string, PostRecord>,
  ) {}

  has(plan: PersonPlan, target: Target): boolean {
    return this.seen.has(targetKey(plan.record.username, target));
  }

  add(plan: PersonPlan, target: Target, type: ReactionType, reactedAt: number): void {
    this.seen.add(targetKey(plan.record.username, target));
    this.reactions.push({
      internalId: nextInternalId(this.ctx, 'reaction'),
      reactionType: type,
      postSlug: target.post.slug,
      postUrl: target.post.url,
      reactorName: plan.record.fullName,
      reactorUsername: plan.record.username,
      reactedAt: iso(reactedAt),
      commentId: target.comment?.commentId ?? null,
    });
  }

  /** A reaction a little after its target, of a type drawn by popularity. */
  addSoonAfter(plan: PersonPlan, target: Target): void {
    const type = this.ctx.rng.weighted(reactionTypes, REACTION_WEIGHTS);
    this.add(plan, target, type, targetTime(target) + this.ctx.rng.int(10, 24 * 60) * MINUTE);
  }

  commentTarget(comment: CommentRecord): Target {
    const post = this.postsBySlug.get(comment.postSlug);
    if (!post) throw new Error(`Comment ${comment.commentId} is under an unknown post`);
    return { post, comment };
  }
}

function plantFixturePostReactions(
  ctx: GenerationContext,
  log: ReactionLog,
  people: readonly PersonPlan[],
  post: PostRecord,
) {
  const reactors = ctx.rng.sample(audienceOf(people, post.authorUsername), FIXTURE_POST_REACTIONS);
  reactors.forEach((plan, i) => {
    const type = reactionTypes[i % reactionTypes.length] ?? 'LIKE';
    log.add(plan, { post, comment: null }, type, time(post.postedAt) + (i + 1) * 47 * MINUTE);
  });
}

/** The rich profile's stream: one reaction every 30 hours back from now, comment slots as planned. */
function plantRichReactions(
  ctx: GenerationContext,
  log: ReactionLog,
  plan: PersonPlan,
  activity: Omit<Activity, 'reactions'>,
) {
  const username = plan.record.username;
  const postTargets = activity.posts
    .filter((post) => post.authorUsername !== username)
    .map((post) => ({ post, comment: null }));
  const commentTargets = activity.comments
    .filter((comment) => comment.authorUsername !== username)
    .map((comment) => log.commentTarget(comment));
  for (let i = 0; i < RICH_REACTIONS; i++) {
    const reactedAt = NOW - HOUR - i * 30 * HOUR;
    const pool = RICH_COMMENT_REACTION_SLOTS.has(i) ? commentTargets : postTargets;
    const candidates = pool.filter(
      (target) => targetTime(target) < reactedAt - 10 * MINUTE && !log.has(plan, target),
    );
    const type = ctx.rng.weighted(reactionTypes, REACTION_WEIGHTS);
    log.add(plan, ctx.rng.pick(candidates), type, reactedAt);
  }
}

/** A quarter of reactions go to comments: the ones the profile reactions stream must leave out. */
function drawTarget(ctx: GenerationContext, log: ReactionLog, activity: Omit<Activity, 'reactions'>): Target {
  if (ctx.rng.chance(0.25)) return log.commentTarget(ctx.rng.pick(activity.comments));
  return { post: ctx.rng.pick(activity.posts), comment: null };
}

function buildReactions(
  ctx: GenerationContext,
  people: readonly PersonPlan[],
  activity: Omit<Activity, 'reactions'>,
): ReactionRecord[] {
  const log = new ReactionLog(ctx, new Map(activity.posts.map((post) => [post.slug, post])));
  const fixturePost = activity.posts.find((post) => post.slug === fx.post.slug);
  if (fixturePost) plantFixturePostReactions(ctx, log, people, fixturePost);
  for (const plan of people) {
    if (plan.record.username === fx.richProfile.username) plantRichReactions(ctx, log, plan, activity);
    for (let i = 0; i < plan.reactionCount; i++) {
      const target = drawTarget(ctx, log, activity);
      const own = (target.comment?.authorUsername ?? target.post.authorUsername) === plan.record.username;
      if (!own && !log.has(plan, target)) log.addSoonAfter(plan, target);
    }
  }
  return log.reactions;
}

/** Post counts as the dataset holds them: reactions to the post itself, and its comments. */
function countEngagement({ posts, comments, reactions }: Activity): void {
  const tally = (keys: string[]) =>
    keys.reduce((counts, key) => counts.set(key, (counts.get(key) ?? 0) + 1), new Map<string, number>());
  const commentCounts = tally(comments.map((comment) => comment.postSlug));
  const reactionCounts = tally(
    reactions.filter((reaction) => reaction.commentId === null).map((reaction) => reaction.postSlug),
  );
  for (const post of posts) {
    post.commentCount = commentCounts.get(post.slug) ?? 0;
    post.reactionCount = reactionCounts.get(post.slug) ?? 0;
  }
}

/** The batch's activity, each list newest first; `companies` are those whose posts go with the batch. */
export function buildActivity(
  ctx: GenerationContext,
  people: readonly PersonPlan[],
  companies: readonly CompanyPlan[],
): Activity {
  const posts = buildPosts(ctx, people, companies);
  const comments = buildComments(ctx, people, posts);
  const reactions = buildReactions(ctx, people, { posts, comments });
  const activity = { posts, comments, reactions };
  countEngagement(activity);
  return {
    posts: newestFirst(posts, (post) => post.postedAt),
    comments: newestFirst(comments, (comment) => comment.commentedAt),
    reactions: newestFirst(reactions, (reaction) => reaction.reactedAt),
  };
}

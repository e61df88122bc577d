/**
 * Run functions of the profile family.
 */
import type { profileOperations } from '../../schemas/operations/profiles.js';
import { cursorOperation } from '../paging/cursors.js';
import { PAGE_SIZE, startPage } from '../paging/pages.js';
import type { RunContext, RunnerMap, RunnerRuntime, RunResult } from '../pipeline/operation.js';
import type { ActivityKind, DataSource, ProfileListName } from '../sources/data-source.js';
import { type DataDependencies, defaultDataDependencies, profileRef } from './data-runtime.js';

type ProfileIdentifier = { username?: string; url?: string; publicId?: string };

export function createRunners(
  runtime: RunnerRuntime,
  deps: DataDependencies = defaultDataDependencies(runtime),
): RunnerMap<(typeof profileOperations)[number]> {
  const { source } = deps;
  const list =
    (name: ProfileListName, field: string) =>
    async (input: ProfileIdentifier, { signal }: RunContext): Promise<RunResult> => ({
      data: { [field]: await source.profileList(profileRef(input), name, signal) },
    });
  const activity = (kind: ActivityKind) => activityPage(deps, kind);

  return {
    'profiles.details': async (input, { signal }) => {
      const { profile, sections, skillsHasMore } = await source.profileDetails(profileRef(input), signal);
      return { data: profile, meta: { sections, skills: { hasMore: skillsHasMore } } };
    },
    'profiles.contact': async (input, { signal }) => ({
      data: await source.profileContact(profileRef(input), signal),
    }),
    'profiles.experience': list('positions', 'positions'),
    'profiles.education': list('education', 'education'),
    'profiles.certifications': list('certifications', 'certifications'),
    'profiles.courses': list('courses', 'courses'),
    'profiles.volunteer-experience': list('volunteerExperience', 'volunteerExperience'),
    'profiles.skills': async (input, { signal }) => {
      const start = input.start ?? 0;
      const page = startPage(
        start,
        await source.profileSkills(profileRef(input), { start, count: PAGE_SIZE }, signal),
      );
      return { data: { skills: page.items }, meta: { paging: page.paging } };
    },
    'profiles.company-interests': async (input, { signal }) => {
      const start = input.start ?? 0;
      const window = await source.profileCompanyInterests(
        profileRef(input),
        { start, count: PAGE_SIZE },
        signal,
      );
      const page = startPage(start, window);
      return { data: { companyInterests: page.items }, meta: { paging: page.paging } };
    },
    'profiles.posts': activity('posts'),
    'profiles.comments': activity('comments'),
    'profiles.reactions': activity('reactions'),
    'profiles.similar': async ({ username }, { signal }) => ({
      data: { profiles: await source.similarProfiles(username, signal) },
    }),
  };
}

/** One cursor page of a profile's activity stream; the cursor is bound to operation, account, username. */
function activityPage(
  { source, cursors }: { source: DataSource; cursors: DataDependencies['cursors'] },
  kind: ActivityKind,
) {
  return async (input: { username: string; cursor?: string }, context: RunContext): Promise<RunResult> => {
    const binding = {
      operation: cursorOperation(context.operationId, context.api),
      accountId: context.accountId,
      subject: input.username.normalize('NFC').toLowerCase(),
    };
    const position = input.cursor ? await cursors.resume(input.cursor, binding) : null;
    const page = await source.profileActivity(input.username, kind, position, context.signal);
    const nextCursor = page.next === null ? null : await cursors.issue(binding, page.next);
    return { data: { [kind]: page.items }, meta: { paging: { hasMore: nextCursor !== null, nextCursor } } };
  };
}

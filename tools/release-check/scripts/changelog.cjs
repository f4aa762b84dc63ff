// The changelog writer of `changeset version` (.changeset/config.json): changesets' default
// (@changesets/changelog-git), except that an "Updated dependencies" entry naming only first
// releases of this workspace's packages is left out. A package's first release describes the
// package as it is; that its siblings were released beside it tells a first reader nothing.
const { default: base } = require('@changesets/cli/changelog');

module.exports = {
  getReleaseLine: base.getReleaseLine,
  getDependencyReleaseLine: async (changesets, dependencies, options) =>
    dependencies.every((dependency) => dependency.oldVersion === '0.0.0')
      ? ''
      : base.getDependencyReleaseLine(changesets, dependencies, options),
};

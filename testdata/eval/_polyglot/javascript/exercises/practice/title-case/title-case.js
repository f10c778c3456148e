export const titleCase = (title) => {
  throw new Error('Remove this line and implement the function');
};

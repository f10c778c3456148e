const unused = 1;
function f(a) {
  console.log(a)
  return undefinedName;
}
module.exports = f;
